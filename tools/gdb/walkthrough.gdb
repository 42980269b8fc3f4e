## cuda-gdb walkthrough of one rung: the template that tools/gdb_walkthrough.sh fills in.
## Not runnable as it is: the words between @ signs become the rung's file, breakpoint line,
## condition and variables. The script writes the filled-in copy (without these ## lines) to
## <build>/gdb/walkthrough_rungNN.gdb; that copy runs as it is:
##   cuda-gdb -x <build>/gdb/walkthrough_rungNN.gdb --args sgemm_bench --kernel N --m M --n N --k K ...
## One command per line, no multi-line blocks: the script passes each line as its own -ex, so
## that one failing print does not end the session.
set pagination off
set confirm off
set breakpoint pending on
set print pretty off
set print elements 64
set cuda api_failures hide
#
# Rung @RUNG@ (kernels/@FILE@): stop on the line `@PATTERN@`, where the shared-memory tiles,
# the K position and the accumulators are all in scope. The condition picks one thread of one
# block, at K slab @STEP@, in the timed run at M x N x K = @SIZE@ (not sgemm_bench's 8x8x8
# preflight launch). cuBLAS (rung 0) also runs in this process; the breakpoint is on rung
# @RUNG@'s own source line, so cuBLAS never stops.
#
# The rung's file holds host code too (its launch), which sgemm_bench links, so a breakpoint on
# the line set before the rung's device code is loaded would land on the nearest host line, where
# the condition's blockIdx means nothing, and be refused. So the program first runs through the
# rung's first host launch (the preflight), which loads its module, and the breakpoint is set
# there, where the line's device code is known.
break @LAUNCH@
run
finish
delete
break @FILE@:@LINE@ if @CONDITION@
continue
@FOCUS@
echo \n== where: the kernel, block and thread in focus\n
cuda kernel block thread
info cuda kernels
print blockIdx
print threadIdx
print gridDim
print blockDim
echo \n== this thread's coordinates and the K position (@VARS@)\n
@PRINT_VARS@
echo \n== shared-memory tiles, first 8 floats of rows 0 and 1 (@TILES@)\n
@PRINT_TILES@
echo \n== the same [0][0] elements read straight from global memory: they must match\n
@PRINT_GLOBAL@
echo \n== accumulators after @STEP@ slab(s) of K: @ACC_NOTE@\n
@PRINT_ACC@
#---- batch only: step over this line (@NEXT_NOTE@) and show the accumulators again ----
delete
next
echo \n== after `next`: @NEXT_NOTE@\n
@PRINT_ACC@
kill
