#!/usr/bin/env bash
# One call that does everything a GPU machine is needed for, so a short lease is enough:
# build (release, and debug when asked), tests, compute-sanitizer, benchmarks, the workload suite,
# SASS, ncu, cuda-gdb, the Python package's GPU tests, the model benchmark, tuning. Logs and results land in OUTDIR,
# named after the GPU (h200.json, h100_workloads.json, ...); a summary table is printed last.
#
#   tools/gpu_session.sh OUTDIR [step ...]
#   steps: probe build build-debug tune dispatch dispatch-tensor explain test sanitize bench results refresh peer tensor moduli unaligned
#          layouts suite soak sass ncu gdb fault python model (default: probe build test bench)
#   TUNE_ARGS (e.g. "--rungs 9"), EXPLAIN (e.g. "oddk_4095_127,1x4096x4096") and SOAK_MINUTES pass options through.
#   refresh: the stale rungs (told from the sources, as here), or REFRESH_RUNGS (e.g. "16,17"), measured
#   again in each of REFRESH_FILES (default "<gpu>.json", names under bench/results/) with
#   tools/refresh_results.py; the merged files land in OUTDIR.
#   The commit measured: git in a checkout; on a copy of the tree without its history, the stamp that
#   `python3 tools/tree_stamp.py write` left at the root before the copy (checked against the files:
#   a changed file records "unknown-dirty"); SGEMM_LADDER_GIT_DESCRIBE=<commit> overrides both.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: tools/gpu_session.sh OUTDIR [step ...]}
shift
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(probe build test bench)
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
cd "$root"
bench=build/release/bench/sgemm_bench
# Facts about rungs come from the registry (through the package, which reads the built library):
#   registry 'EXPRESSION over rungs'  prints the expression, e.g. the capstone's id.
registry() {
  PYTHONPATH="$root/python" python3 -c "from sgemm_ladder import library as l; rungs = l.rungs(); print($1)"
}
summary=()
# The results files are named after the GPU: "NVIDIA H200" -> h200, "NVIDIA H100 80GB HBM3" -> h100.
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 | sed -E 's/^NVIDIA //; s/ .*//' |
      tr '[:upper:]' '[:lower:]')
gpu=${gpu:-gpu}

run_step() {  # name command...
  local name=$1; shift
  local t0=$SECONDS
  echo "=== $name: $*"
  "$@" >"$out/$name.log" 2>&1
  local rc=$?
  summary+=("$(printf '%-14s rc=%-3s %4ss' "$name" "$rc" "$((SECONDS - t0))")")
  tail -n 25 "$out/$name.log"
  return $rc
}

for step in "${steps[@]}"; do
  case $step in
    probe)
      run_step probe bash -c 'nvidia-smi; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv; nvcc --version; cmake --version | head -1; which compute-sanitizer ncu cuda-gdb; for t in cuobjdump nvdisasm; do echo "$t: $(python3 tools/sgemm_tools_common.py which $t || echo "none (tools/setup.sh)")"; done; uname -a' ;;
    build)
      run_step build bash -c 'cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build --preset release -j 16' ;;
    build-debug)
      run_step build-debug bash -c 'cmake --preset debug && cmake --build --preset debug -j 16' ;;
    test)
      run_step test ctest --preset release -j 8 --timeout 900 ;;
    sanitize)
      run_step sanitize env SANITIZE_JOBS=${SANITIZE_JOBS:-8} tools/sanitize.sh all build/release/tests/gpu_tests ;;
    bench)
      run_step bench "$bench" --sizes 4096,8192 --json "$out/bench.json" ;;
    tune)
      run_step tune build/release/tools/sgemm_autotune ${TUNE_ARGS:-} --json "$out/${gpu}_autotune.json" &&
        cp kernels/tuned/sm_90.cuh "$out/" &&
        run_step rebuild cmake --build --preset release -j 16 ;;
    dispatch)  # the dispatch rung's model constants, measured on this GPU
      run_step dispatch build/release/tools/sgemm_autotune --dispatch --json "$out/${gpu}_dispatch.json" &&
        cp kernels/tuned/dispatch_sm_90.cuh "$out/" &&
        run_step rebuild cmake --build --preset release -j 16 ;;
    dispatch-tensor)  # the dispatch rung's tensor-path constants (rung 32's times), measured on this GPU
      run_step dispatch_tensor build/release/tools/sgemm_autotune --dispatch-tensor --json "$out/${gpu}_tensor_model.json" &&
        cp kernels/tuned/tensor_sm_90.cuh "$out/" &&
        run_step rebuild cmake --build --preset release -j 16 ;;
    explain)  # every suite shape's candidates, predicted and timed (EXPLAIN: shapes or names; default all)
      run_step explain build/release/tools/sgemm_autotune --dispatch-explain "${EXPLAIN:-all}" ;;
    results)  # the committed results file: square sweep, non-square shapes, accuracy over K
      run_step results "$bench" --sizes 256,512,1024,1536,2048,3072,4096,6144,8192 \
        --shapes 8192x1024x8192,1024x8192x8192,4096x4096x16384,16384x16384x1024 --min-time 0.1 \
        --accuracy-sweep --json "$out/${gpu}.json" ;;
    peer)  # sgemm_bench with GEMMul8 beside the Ozaki rungs, in build/peer: GEMMUL8_SOURCE is a checkout of
      # github.com/RIKEN-RCCS/GEMMul8 (built with its own Makefile, or compiled here: minutes)
      run_step peer bash -c 'cmake -S . -B build/peer -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DSGEMM_GEMMUL8_SOURCE="${GEMMUL8_SOURCE:?set GEMMUL8_SOURCE to a GEMMul8 checkout}" &&
        cmake --build build/peer -j 16 --target sgemm_bench' ;;
    tensor)  # cuBLAS and the tensor-core track at 4096^3-16384^3, GEMMul8 (7 moduli) beside the Ozaki rungs
      # where the peer step built it, energy per row: <gpu>_tensor.json
      peer_bench=$bench peer_args=()
      [ -x build/peer/bench/sgemm_bench ] && peer_bench=build/peer/bench/sgemm_bench peer_args=(--gemmul8 7)
      run_step tensor "$peer_bench" --kernel "0,$(registry '",".join(str(r.id) for r in rungs if r.track == "tensor-core")')" \
        --sizes 4096,8192,16384 --min-time 0.1 "${peer_args[@]}" --energy 1 --json "$out/${gpu}_tensor.json" ;;
    moduli)  # rung 31's accuracy against speed over the number of moduli and the inputs' range, beside cuBLAS,
      # its INT8 method and GEMMul8 where the peer step built it: <gpu>_moduli.json (tools/moduli_sweep.py)
      peer_bench=$bench peer_arg=--no-gemmul8
      [ -x build/peer/bench/sgemm_bench ] && peer_bench=build/peer/bench/sgemm_bench peer_arg=--gemmul8
      run_step moduli python3 tools/moduli_sweep.py --bench "$peer_bench" "$peer_arg" --json "$out/${gpu}_moduli.json" ;;
    unaligned)  # every rung from the vectorized one up at 4096^3 with every leading dimension 4097
      # (from the first rung whose reported kernel is its 128-bit instance, `true` in the registry)
      ids=$(registry '",".join(str(r.id) for r in rungs[next(i for i, r in enumerate(rungs) if "true" in r.kernel):])')
      run_step unaligned "$bench" --kernel "$ids" --m 4096 --n 4096 --k 4096 --lda 4097 --ldb 4097 --ldc 4097 \
        --min-time 0.1 --json "$out/${gpu}_unaligned.json" ;;
    layouts)  # the rungs that read transposed operands in place, in every layout, against cuBLAS in each
      run_step layouts "$bench" --kernel "0,16,$(registry 'l.capstone().id'),auto" --sizes 2048,4096,8192 \
        --layout nn,nt,tn,tt --min-time 0.1 --json "$out/${gpu}_layouts.json" ;;
    suite)  # the workload suite: cuBLAS, the capstone and the dispatch rung on every shape
      run_step suite "$bench" --kernel "0,$(registry 'l.capstone().id'),auto" --suite workloads --min-time 0.05 --json "$out/${gpu}_workloads.json" ;;
    python)  # the Python package's GPU tests (torch, CuPy, torch.compile), installed without network: with
      # its C++ operators (built against the installed torch), then with its Python ones
      run_step python bash -c 'python3 -m pip install -q --no-build-isolation --no-deps \
        --config-settings=cmake.define.CMAKE_CUDA_ARCHITECTURES=native . &&
        python3 -c "import sgemm_ladder.torch_ops as t; print(\"operators:\", t.BACKEND, t.WHY_PYTHON)" &&
        python3 -m pytest -q tests/python && SGEMM_LADDER_TORCH_OPS=python python3 -m pytest -q tests/python' ;;
    model)  # the model benchmark (after the python step installed the package): <gpu>_model.json
      run_step model python3 bench/model/model_bench.py --json "$out/${gpu}_model.json" ;;
    refresh)  # the stale rows of committed files measured again and merged (tools/refresh_results.py)
      for f in ${REFRESH_FILES:-$gpu.json}; do
        cp "bench/results/$f" "$out/$f" &&
          run_step "refresh_${f%.json}" python3 tools/refresh_results.py "$out/$f" ${REFRESH_RUNGS:+--rungs "$REFRESH_RUNGS"} --run
      done ;;
    soak)
      run_step soak "$bench" --soak "${SOAK_MINUTES:-5}" ;;
    fault)
      run_step fault bash -c 'ctest --preset debug -L faults --output-on-failure; tools/fault_lab.sh all' ;;
    sass)
      run_step sass python3 tools/sass_report.py --all --json "$out/${gpu}_sass.json" ;;
    ncu)
      run_step ncu python3 tools/ncu_profile.py --all --csv "$out/${gpu}_ncu.csv" ;;
    gdb)
      run_step gdb bash -c 'for k in 3 6 10; do tools/gdb_walkthrough.sh --batch --kernel $k; done' ;;
    *)
      echo "unknown step $step"; summary+=("$step: unknown") ;;
  esac
done

echo
echo "=== summary"
printf '%s\n' "${summary[@]}"
