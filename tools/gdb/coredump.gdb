# cuda-gdb commands for a GPU core dump of the fault lab (tools/fault_lab.sh coredump).
# Run after opening the dump:
#   cuda-gdb -batch -ex "target cudacore FILE" -x tools/gdb/coredump.gdb
# (tools/fault_lab.sh passes each line as its own -ex, so that one failing command does not end
# the session.) The dump was written with the lightweight flags (no global, shared or local
# memory): registers, the faulting PC, the kernel, the grid and the focus are all there, so are
# the device code and its line table (-G), but not the values of variables kept in memory.
set pagination off
set confirm off
set print pretty off
echo \n== the kernel that faulted\n
info cuda kernels
echo \n== focus: the block and thread that faulted (cuda-gdb put the focus there)\n
cuda kernel block thread
echo \n== where: frame 0 and the call stack\n
frame
bt
echo \n== $errorpc: the faulting instruction and the next ones\n
x/4i $errorpc
echo \n== the source line of $errorpc\n
info line *$errorpc
list
echo \n== registers of the faulting thread\n
info registers
