// The sgemm_ladder operators for PyTorch, in C++: libsgemm_ladder_torch.so, loaded by
// python/sgemm_ladder/torch_ops.py with torch.ops.load_library (not a Python extension module: no
// Python header is included). Built by CMake when PyTorch is found at configure time
// (SGEMM_LADDER_TORCH, python/sgemm_ladder/csrc/CMakeLists.txt); tied to the PyTorch it was built
// against. Without it the package defines the same operators in Python (torch_ops.py), which do
// the same checks with the same messages, make the same plan (gemm.py) and call the same C ABI.
//
//   sgemm_ladder::gemm(a, b, bias, rung, alpha, transa, transb) -> Tensor
//       alpha * op(a) @ op(b) + bias; op(x) = x, or x transposed (its last two dimensions) when
//       asked; a and b are matrices or batches of them (3-D), as torch.matmul takes them.
//   sgemm_ladder::mm(a, b, rung, alpha) -> Tensor                 gemm without bias or transposes
//   sgemm_ladder::mm_out(a, b, out, rung, alpha, beta) -> ()      out = alpha * a @ b + beta * out
//
// Why C++: a call's host work (checks, the plan, the allocation, the launch) is what a model pays
// on every projection, and Python costs tens of microseconds of it. The autograd formula is C++
// too, so a call that needs no gradient never enters Python. The fake implementations that
// torch.compile traces with stay in Python (torch.library.register_fake in torch_ops.py).
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "sgemm_ladder.h"

namespace {

using at::Tensor;
using c10::string_view;

// ---------------------------------------------------------------------------------------------
// Messages: the same text as the Python checks (python/sgemm_ladder/gemm.py).

// Every message is built here, by appending to a std::string, and reaches TORCH_CHECK as one
// string (which c10 passes on as it is): no iostream is used in this library. On an H200 machine,
// every failed check whose message c10::str built with std::ostringstream crashed the process
// inside std::ostream's insertion of a long (pytest at a343939).
inline void put(std::string& s, const std::string& v) { s += v; }
inline void put(std::string& s, std::string_view v) { s.append(v.data(), v.size()); }
inline void put(std::string& s, const char* v) { s += v; }
inline void put(std::string& s, char v) { s += v; }
template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                                        !std::is_same_v<T, char>, int> = 0>
void put(std::string& s, T v) { s += std::to_string(v); }

template <class... Ts>
std::string cat(const Ts&... parts) {
  std::string s;
  (put(s, parts), ...);
  return s;
}

std::string py_tuple(c10::IntArrayRef values) {  // Python's repr of a tuple: (4, 8), (4,), ()
  std::string s = "(";
  for (size_t i = 0; i < values.size(); ++i) s += cat(i ? ", " : "", values[i]);
  return s + (values.size() == 1 ? ",)" : ")");
}

std::string dims_text(const int64_t* sizes, int dim) {  // 4x8, 2x4x8
  std::string s;
  for (int i = 0; i < dim; ++i) s += cat(i ? "x" : "", sizes[i]);
  return s;
}

std::string dtype_name(at::ScalarType t) {  // str(torch.float64) without "torch."
  switch (t) {
    case at::kFloat: return "float32";
    case at::kDouble: return "float64";
    case at::kHalf: return "float16";
    case at::kBFloat16: return "bfloat16";
    case at::kByte: return "uint8";
    case at::kChar: return "int8";
    case at::kShort: return "int16";
    case at::kInt: return "int32";
    case at::kLong: return "int64";
    case at::kBool: return "bool";
    case at::kComplexFloat: return "complex64";
    case at::kComplexDouble: return "complex128";
    default: return c10::toString(t);
  }
}

std::string py_repr(string_view text) {  // repr() of a str without quotes inside
  return "'" + std::string(text) + "'";
}

// ---------------------------------------------------------------------------------------------
// What the plan needs of an operand: gemm.Matrix's shape and strides (at most three dimensions).

struct Operand {
  int dim = 0;
  int64_t size[3] = {0, 0, 0};
  int64_t stride[3] = {0, 0, 0};

  static Operand of(const Tensor& t) {
    Operand o;
    o.dim = static_cast<int>(t.dim());
    for (int i = 0; i < o.dim && i < 3; ++i) {
      o.size[i] = t.size(i);
      o.stride[i] = t.stride(i);
    }
    return o;
  }
  int64_t rows() const { return size[dim - 2]; }
  int64_t cols() const { return size[dim - 1]; }
  int64_t batch() const { return dim == 3 ? size[0] : 1; }
  int64_t batch_stride() const { return dim == 3 ? stride[0] : 0; }
  bool row_major() const {
    const int64_t r = rows(), c = cols(), rs = stride[dim - 2], cs = stride[dim - 1];
    return (c <= 1 || cs == 1) && (r <= 1 || rs >= std::max<int64_t>(1, c));
  }
  bool column_major() const {
    const int64_t r = rows(), c = cols(), rs = stride[dim - 2], cs = stride[dim - 1];
    return (r <= 1 || rs == 1) && (c <= 1 || cs >= std::max<int64_t>(1, r));
  }
  int64_t ld() const {
    const int64_t s = stride[dim - 2], want = std::max<int64_t>(1, cols());
    return s >= want ? s : want;
  }
  int64_t ld_t() const {
    const int64_t s = stride[dim - 1], want = std::max<int64_t>(1, rows());
    return s >= want ? s : want;
  }
  Operand t() const {
    Operand o = *this;
    std::swap(o.size[dim - 2], o.size[dim - 1]);
    std::swap(o.stride[dim - 2], o.stride[dim - 1]);
    return o;
  }
  Operand op(bool trans) const { return trans ? t() : *this; }
  // ('N', ld) row-major, ('T', ld) column-major, or no layout the library reads in place.
  bool layout(char* trans, int64_t* lead) const {
    if (dim == 3 && batch() > 1 && batch_stride() < 0) return false;
    if (row_major()) {
      *trans = 'N';
      *lead = ld();
      return true;
    }
    if (column_major()) {
      *trans = 'T';
      *lead = ld_t();
      return true;
    }
    return false;
  }
  // (B, M, K) as one (B*M, K) matrix when the batch and row dimensions merge.
  bool fold(Operand* out) const {
    const int64_t b = size[0], r = size[1], sb = stride[0], sr = stride[1];
    int64_t s;
    if (b == 1) s = sr;
    else if (r == 1) s = sb;
    else if (sb == r * sr) s = sr;
    else return false;
    out->dim = 2;
    out->size[0] = b * r;
    out->size[1] = size[2];
    out->stride[0] = s;
    out->stride[1] = stride[2];
    return true;
  }
};

// gemm.Plan, field for field.
struct Plan {
  char transa = 'N', transb = 'N';
  int64_t m = 0, n = 0, k = 0, lda = 0, stride_a = 0, ldb = 0, stride_b = 0, ldc = 0, stride_c = 0;
  int64_t batch = 1;
  std::vector<int64_t> shape;
  bool copy_a = false, copy_b = false, copy_bias = false;
  bool out_direct = true, fold = false;
  bool copies() const { return copy_a || copy_b || copy_bias; }
};

std::vector<int64_t> result_shape(const Operand& a, const Operand& b, bool ta, bool tb) {
  const int64_t m = a.op(ta).rows(), n = b.op(tb).cols();
  if (a.dim == 2 && b.dim == 2) return {m, n};
  return {std::max(a.batch(), b.batch()), m, n};
}

// gemm.plan: how the library reads each operand (after the checks).
Plan make_plan(const Operand& a, const Operand& b, const Operand* out, const Operand* bias, bool ta, bool tb) {
  Plan p;
  const Operand opa = a.op(ta), opb = b.op(tb);
  p.shape = result_shape(a, b, ta, tb);
  p.m = opa.rows();
  p.k = opa.cols();
  p.n = opb.cols();
  p.batch = p.shape.size() == 3 ? p.shape[0] : 1;
  char t;
  int64_t lead;
  p.copy_a = !opa.layout(&t, &lead);
  p.copy_b = !opb.layout(&t, &lead);
  p.copy_bias = bias != nullptr && bias->size[0] > 1 && bias->stride[0] != 1;
  if (p.copies()) return p;
  const bool batched = p.batch > 1;
  if (out != nullptr) {
    char tc;
    int64_t ldc;
    p.out_direct = out->layout(&tc, &ldc) && tc == 'N' &&
                   (out->dim == 2 || !batched || out->batch_stride() >= out->size[1] * out->ld());
  }
  const Operand* c = out != nullptr && p.out_direct ? out : nullptr;
  p.ldc = c != nullptr ? c->ld() : std::max<int64_t>(1, p.n);
  p.stride_c = batched ? (c != nullptr && c->dim == 3 ? c->batch_stride() : p.m * p.ldc) : 0;
  if (a.dim == 3 && b.dim == 2 && batched) {
    Operand fa, fc;
    char tfa;
    int64_t lfa;
    const bool a_folds = opa.fold(&fa) && fa.layout(&tfa, &lfa);
    const bool c_folds = c == nullptr || c->fold(&fc);
    if (a_folds && c_folds) {
      p.transa = tfa;
      p.lda = lfa;
      opb.layout(&p.transb, &p.ldb);
      p.m *= p.batch;
      p.ldc = c != nullptr ? fc.ld() : std::max<int64_t>(1, p.n);
      p.stride_a = p.stride_b = p.stride_c = 0;
      p.batch = 1;
      p.fold = true;
      return p;
    }
  }
  opa.layout(&p.transa, &p.lda);
  opb.layout(&p.transb, &p.ldb);
  p.stride_a = batched && opa.batch() > 1 ? opa.batch_stride() : 0;
  p.stride_b = batched && opb.batch() > 1 ? opb.batch_stride() : 0;
  return p;
}

// ---------------------------------------------------------------------------------------------
// The checks of gemm.check, in its order and with its words.

void check_shapes(const Tensor& a, const Tensor& b, const Tensor* out, const Tensor* bias, bool ta, bool tb) {
  for (auto [x, name] : {std::pair{&a, "a"}, std::pair{&b, "b"}}) {
    TORCH_CHECK_VALUE(x->dim() == 2 || x->dim() == 3, cat(name,
                      " must be a matrix (2-D) or a batch of matrices (3-D), got shape ", py_tuple(x->sizes())));
  }
  TORCH_CHECK_VALUE(out == nullptr || out->dim() == 2 || out->dim() == 3,
                    cat("out must be a matrix (2-D) or a batch of matrices (3-D), got shape ",
                        py_tuple(out ? out->sizes() : c10::IntArrayRef{})));
  TORCH_CHECK_VALUE(bias == nullptr || bias->dim() == 1, cat("bias must be a vector (1-D), got shape ",
                    py_tuple(bias ? bias->sizes() : c10::IntArrayRef{})));
  for (auto [x, name] : {std::pair{&a, "a"}, std::pair{&b, "b"}, std::pair{out, "out"}, std::pair{bias, "bias"}}) {
    TORCH_CHECK_VALUE(x == nullptr || x->scalar_type() == at::kFloat, cat(name, " must be float32, got ",
                      dtype_name(x ? x->scalar_type() : at::kFloat)));
  }
  const Operand A = Operand::of(a), B = Operand::of(b), opa = A.op(ta), opb = B.op(tb);
  TORCH_CHECK_VALUE(opa.cols() == opb.rows(), cat("shapes do not chain: ", ta ? "aᵀ" : "a", " is ",
                    dims_text(opa.size, opa.dim), ", ", tb ? "bᵀ" : "b", " is ", dims_text(opb.size, opb.dim)));
  TORCH_CHECK_VALUE(!(A.dim == 3 && B.dim == 3 && A.batch() != B.batch() && A.batch() != 1 && B.batch() != 1),
                    cat("batch sizes differ: a holds ", A.batch(), " matrices, b ", B.batch(),
                        " (they must be equal, or one of them 1, as for torch.matmul)"));
  const std::vector<int64_t> want = result_shape(A, B, ta, tb);
  if (out != nullptr) {
    TORCH_CHECK_VALUE(out->sizes().vec() == want,
                      cat("out must be ", dims_text(want.data(), static_cast<int>(want.size())),
                      want.size() == 2 ? " (a's rows x b's columns)" : " (the batch x a's rows x b's columns)",
                      ", got ", py_tuple(out->sizes())));
  }
  TORCH_CHECK_VALUE(bias == nullptr || bias->size(0) == want.back(), cat("bias must hold ", want.back(),
                    " floats (one per column of the result), got shape ",
                    py_tuple(bias ? bias->sizes() : c10::IntArrayRef{})));
}

bool distinct_elements(const Tensor& t) {  // gemm.Matrix.distinct_elements
  std::vector<std::pair<int64_t, int64_t>> dims;
  for (int64_t i = 0; i < t.dim(); ++i) {
    if (t.size(i) > 1) dims.emplace_back(std::abs(t.stride(i)), t.size(i));
  }
  if (dims.empty()) return true;
  std::sort(dims.begin(), dims.end());
  const auto [inner_stride, inner_size] = dims[0];
  if (inner_stride < 1) return false;
  for (size_t i = 1; i < dims.size(); ++i) {
    if (dims[i].first < inner_stride * inner_size) return false;
  }
  return true;
}

std::pair<uintptr_t, uintptr_t> byte_range(const Tensor& t) {  // gemm.Matrix.byte_range
  if (t.numel() == 0) return {0, 0};
  int64_t low = 0, high = 0;
  for (int64_t i = 0; i < t.dim(); ++i) {
    const int64_t o = (t.size(i) - 1) * t.stride(i);
    (o < 0 ? low : high) += o;
  }
  const auto base = reinterpret_cast<uintptr_t>(t.data_ptr());
  return {base + low * 4, base + (high + 1) * 4};
}

void check_devices(const Tensor& a, const Tensor& b, const Tensor* out, const Tensor* bias) {
  const std::pair<const Tensor*, const char*> all[] = {{&a, "a"}, {&b, "b"}, {out, "out"}, {bias, "bias"}};
  bool same = true;
  for (auto [x, name] : all) {
    if (x == nullptr) continue;
    TORCH_CHECK_VALUE(x->is_cuda(), cat(name, " is on ", x->device().str(), ": sgemm_ladder runs on CUDA devices"));
    same = same && x->device() == a.device();
  }
  if (!same) {
    std::string s = "operands on different devices: ";
    bool first = true;
    for (auto [x, name] : all) {
      if (x == nullptr) continue;
      s += cat(first ? "" : ", ", name, " on ", x->device().str());
      first = false;
    }
    TORCH_CHECK_VALUE(false, s);
  }
  if (out != nullptr) {
    TORCH_CHECK_VALUE(distinct_elements(*out), cat("out has elements that share memory (strides ",
                      py_tuple(out->strides()), ")"));
    const auto [out_lo, out_hi] = byte_range(*out);
    for (auto [x, name] : {std::pair{&a, "a"}, std::pair{&b, "b"}, std::pair{bias, "bias"}}) {
      if (x == nullptr) continue;
      const auto [lo, hi] = byte_range(*x);
      TORCH_CHECK_VALUE(!(lo < out_hi && out_lo < hi),
                        cat("out overlaps ", name, " in memory: write the result elsewhere"));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Rungs: named as library.find_rung takes them, resolved by the library (sgemm_ladder_kernel_lookup),
// each distinct text once.

std::string status_text(int status) {
  const char* s = sgemm_ladder_status_string(status);
  return s ? s : "";
}

int resolve_rung(const std::string& rung) {
  const int id = sgemm_ladder_kernel_lookup(rung.c_str());  // the library's one resolution of names
  TORCH_CHECK_VALUE(id >= 0, cat("rung ", py_repr(rung), ": ", status_text(SGEMM_LADDER_ERR_UNKNOWN_KERNEL), ": ",
                                 sgemm_ladder_last_error()));
  return id;
}

int rung_id(string_view rung) {
  thread_local std::string last_text;  // the common case: the same rung as the call before
  thread_local int last_id = -1;
  if (last_id >= 0 && rung == last_text) return last_id;
  static std::mutex mutex;
  static std::unordered_map<std::string, int> known;
  std::string text(rung);
  int id;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = known.find(text);
    if (it != known.end()) {
      id = it->second;
    } else {
      id = resolve_rung(text);  // throws for an unknown rung: nothing cached
      known.emplace(text, id);
    }
  }
  last_text = std::move(text);
  last_id = id;
  return id;
}

// ---------------------------------------------------------------------------------------------
// A log of launches for the tests (torch.ops.sgemm_ladder._launch_log): off unless asked for.

constexpr int kLogFields = 18;
std::atomic<bool> log_on{false};
std::mutex log_mutex;
std::vector<int64_t> log_rows;

void log_launch(int id, const Plan& p, const void* a, const void* b, const void* c, const void* bias,
                cudaStream_t stream) {
  const int64_t row[kLogFields] = {id, p.transa, p.transb, p.m, p.n, p.k, p.lda, p.stride_a, p.ldb, p.stride_b, p.ldc,
                                   p.stride_c, p.batch, reinterpret_cast<int64_t>(a), reinterpret_cast<int64_t>(b),
                                   reinterpret_cast<int64_t>(c), reinterpret_cast<int64_t>(bias),
                                   reinterpret_cast<int64_t>(stream)};
  std::lock_guard<std::mutex> lock(log_mutex);
  log_rows.insert(log_rows.end(), row, row + kLogFields);
}

Tensor launch_log(bool enable) {
  std::lock_guard<std::mutex> lock(log_mutex);
  const int64_t rows = static_cast<int64_t>(log_rows.size()) / kLogFields;
  Tensor out = at::empty({rows, kLogFields}, at::kLong);
  std::copy(log_rows.begin(), log_rows.end(), out.data_ptr<int64_t>());
  log_rows.clear();
  log_on = enable;
  return out;
}

// ---------------------------------------------------------------------------------------------
// The CUDA implementation: checks, plan, copies only where the plan asks, one call of the C ABI.

void run(const Tensor& a_in, const Tensor& b_in, const std::optional<Tensor>& bias_in, const Tensor* out,
         string_view rung, double alpha, double beta, bool ta, bool tb, Tensor* result) {
  const Tensor* bias_ptr = bias_in.has_value() && bias_in->defined() ? &*bias_in : nullptr;
  check_shapes(a_in, b_in, out, bias_ptr, ta, tb);
  check_devices(a_in, b_in, out, bias_ptr);
  const int id = rung_id(rung);
  Tensor a = a_in, b = b_in, bias = bias_ptr ? *bias_ptr : Tensor();
  const Operand C = out ? Operand::of(*out) : Operand{};
  const Operand V = bias.defined() ? Operand::of(bias) : Operand{};
  Plan p = make_plan(Operand::of(a), Operand::of(b), out ? &C : nullptr, bias.defined() ? &V : nullptr, ta, tb);
  const c10::cuda::CUDAGuard guard(a.device());
  if (p.copies()) {
    if (p.copy_a) a = a.contiguous();
    if (p.copy_b) b = b.contiguous();
    if (p.copy_bias) bias = bias.contiguous();
    const Operand V2 = bias.defined() ? Operand::of(bias) : Operand{};
    p = make_plan(Operand::of(a), Operand::of(b), out ? &C : nullptr, bias.defined() ? &V2 : nullptr, ta, tb);
  }
  *result = out ? *out : at::empty(p.shape, a.options());
  Tensor target = p.out_direct ? *result : at::empty(p.shape, a.options());
  if (!p.out_direct && beta != 0) target.copy_(*result);
  if (target.numel() > 0) {
    const cudaStream_t stream = at::cuda::getCurrentCUDAStream(a.device().index()).stream();
    const float* pa = a.data_ptr<float>();
    const float* pb = b.data_ptr<float>();
    const float* pbias = bias.defined() ? bias.data_ptr<float>() : nullptr;
    float* pc = target.data_ptr<float>();
    if (log_on.load(std::memory_order_relaxed)) log_launch(id, p, pa, pb, pc, pbias, stream);
    const int status = sgemm_ladder_gemm(id, p.transa, p.transb, p.m, p.n, p.k, static_cast<float>(alpha), pa, p.lda,
                                         p.stride_a, pb, p.ldb, p.stride_b, static_cast<float>(beta), pc, p.ldc,
                                         p.stride_c, pbias, p.batch, stream);
    if (status != SGEMM_LADDER_OK) {
      const char* detail = sgemm_ladder_last_error();
      const std::string why = detail && *detail ? std::string(": ") + detail : std::string();
      TORCH_CHECK(false, cat("sgemm_ladder_gemm(rung ", id, ", ", p.transa, p.transb, ", M=", p.m, ", N=", p.n, ", K=",
                  p.k, ", batch=", p.batch, "): ", status_text(status), why));
    }
  }
  if (!p.out_direct) result->copy_(target);
}

Tensor gemm_cuda(const Tensor& a, const Tensor& b, const std::optional<Tensor>& bias, string_view rung, double alpha,
                 bool transa, bool transb) {
  Tensor result;
  run(a, b, bias, nullptr, rung, alpha, 0.0, transa, transb, &result);
  return result;
}

Tensor mm_cuda(const Tensor& a, const Tensor& b, string_view rung, double alpha) {
  return gemm_cuda(a, b, std::nullopt, rung, alpha, false, false);
}

void mm_out_cuda(const Tensor& a, const Tensor& b, const Tensor& out, string_view rung, double alpha, double beta) {
  Tensor result;
  run(a, b, std::nullopt, &out, rung, alpha, beta, false, false, &result);
}

// The plan alone, for the tests: the C++ plan against gemm.plan on the same shapes and strides
// (meta tensors will do). [transa, transb, m, n, k, lda, stride_a, ldb, stride_b, ldc, stride_c,
// batch, copy_a, copy_b, copy_bias, out_direct, fold], the flags as 'N'/'T' codes and 0/1.
std::vector<int64_t> plan_of(const Tensor& a, const Tensor& b, const std::optional<Tensor>& out,
                             const std::optional<Tensor>& bias, bool transa, bool transb) {
  const Operand C = out ? Operand::of(*out) : Operand{};
  const Operand V = bias ? Operand::of(*bias) : Operand{};
  const Plan p = make_plan(Operand::of(a), Operand::of(b), out ? &C : nullptr, bias ? &V : nullptr, transa, transb);
  return {p.transa, p.transb, p.m, p.n, p.k, p.lda, p.stride_a, p.ldb, p.stride_b, p.ldc, p.stride_c, p.batch,
          p.copy_a, p.copy_b, p.copy_bias, p.out_direct, p.fold};
}

// ---------------------------------------------------------------------------------------------
// Autograd. C = alpha * op(A) op(B) + bias:
//   d op(A) = alpha * dC op(B)ᵀ, d op(B) = alpha * op(A)ᵀ dC, d bias = dC summed over its rows;
// each product is the same operator on the same rung with the transposes flipped, so the
// operands are read in place. A 2-D operand used against a 3-D one gets the sum over the batch:
// for the weight of a linear layer, one product over batch x tokens rows.

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

const c10::TypedOperatorHandle<Tensor(const Tensor&, const Tensor&, const std::optional<Tensor>&, string_view, double,
                                      bool, bool)>&
gemm_op() {
  static const auto handle = c10::Dispatcher::singleton()
                                 .findSchemaOrThrow("sgemm_ladder::gemm", "")
                                 .typed<Tensor(const Tensor&, const Tensor&, const std::optional<Tensor>&, string_view,
                                               double, bool, bool)>();
  return handle;
}

Tensor batch_sum_to(const Tensor& grad, c10::IntArrayRef shape) {  // the batch sum of a broadcast operand
  if (grad.sizes() == shape) return grad;
  if (shape.size() == 2) return grad.sum(0);
  return grad.sum(0, /*keepdim=*/true);
}

variable_list gemm_grads(const Tensor& grad, const Tensor& a, const Tensor& b, bool has_bias, const std::string& rung,
                         double alpha, bool ta, bool tb, bool need_a, bool need_b, bool need_bias) {
  const auto& op = gemm_op();
  const auto product = [&](const Tensor& x, const Tensor& y, bool tx, bool ty) {
    return op.call(x, y, std::nullopt, rung, alpha, tx, ty);
  };
  Tensor da, db, dbias;
  if (need_a) {  // d op(a) = alpha grad op(b)ᵀ; with transa, da = (d op(a))ᵀ = alpha op(b) gradᵀ
    da = ta ? product(b, grad, tb, true) : product(grad, b, false, !tb);
    da = batch_sum_to(da, a.sizes());
  }
  if (need_b) {  // d op(b) = alpha op(a)ᵀ grad; with transb, db = alpha gradᵀ op(a)
    if (b.dim() == 2 && a.dim() == 3) {  // a weight against a batch: one product over all its rows
      const int64_t k = ta ? a.size(1) : a.size(2);
      const Tensor rows = (ta ? a.transpose(1, 2) : a).reshape({-1, k});
      const Tensor g = grad.reshape({-1, grad.size(2)});
      db = tb ? product(g, rows, true, false) : product(rows, g, true, false);
    } else {
      db = tb ? product(grad, a, true, ta) : product(a, grad, !ta, false);
      db = batch_sum_to(db, b.sizes());
    }
  }
  if (need_bias && has_bias) {
    std::vector<int64_t> rows(grad.dim() - 1);
    for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<int64_t>(i);
    dbias = grad.sum(rows);
  }
  return {da, db, dbias};
}

class GemmFunction : public torch::autograd::Function<GemmFunction> {
 public:
  static Tensor forward(AutogradContext* ctx, const Tensor& a, const Tensor& b, const std::optional<Tensor>& bias,
                        string_view rung, double alpha, bool transa, bool transb) {
    ctx->save_for_backward({a, b});
    ctx->saved_data["rung"] = std::string(rung);
    ctx->saved_data["alpha"] = alpha;
    ctx->saved_data["transa"] = transa;
    ctx->saved_data["transb"] = transb;
    ctx->saved_data["bias"] = bias.has_value() && bias->defined();
    at::AutoDispatchBelowADInplaceOrView guard;
    return gemm_op().call(a, b, bias, rung, alpha, transa, transb);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const Tensor& grad = grads[0];
    const bool has_bias = ctx->saved_data["bias"].toBool();
    variable_list g = gemm_grads(grad, saved[0], saved[1], has_bias, ctx->saved_data["rung"].toStringRef(),
                                 ctx->saved_data["alpha"].toDouble(), ctx->saved_data["transa"].toBool(),
                                 ctx->saved_data["transb"].toBool(), ctx->needs_input_grad(0),
                                 ctx->needs_input_grad(1), has_bias && ctx->needs_input_grad(2));
    return {g[0], g[1], g[2], Tensor(), Tensor(), Tensor(), Tensor()};
  }
};

bool wants_grad(const Tensor& a, const Tensor& b, const std::optional<Tensor>& bias) {
  return at::GradMode::is_enabled() &&
         (a.requires_grad() || b.requires_grad() || (bias.has_value() && bias->defined() && bias->requires_grad()));
}

Tensor gemm_autograd(const Tensor& a, const Tensor& b, const std::optional<Tensor>& bias, string_view rung,
                     double alpha, bool transa, bool transb) {
  if (!wants_grad(a, b, bias)) {  // inference: no node, straight to the kernel
    at::AutoDispatchBelowADInplaceOrView guard;
    return gemm_op().call(a, b, bias, rung, alpha, transa, transb);
  }
  return GemmFunction::apply(a, b, bias, rung, alpha, transa, transb);
}

Tensor mm_autograd(const Tensor& a, const Tensor& b, string_view rung, double alpha) {
  if (!wants_grad(a, b, std::nullopt)) {
    static const auto mm = c10::Dispatcher::singleton()
                               .findSchemaOrThrow("sgemm_ladder::mm", "")
                               .typed<Tensor(const Tensor&, const Tensor&, string_view, double)>();
    at::AutoDispatchBelowADInplaceOrView guard;
    return mm.call(a, b, rung, alpha);
  }
  return GemmFunction::apply(a, b, std::nullopt, rung, alpha, false, false);
}

}  // namespace

// The schemas: python/sgemm_ladder/torch_ops.py's SCHEMAS says the same (a test compares them).
TORCH_LIBRARY(sgemm_ladder, m) {
  m.def("gemm(Tensor a, Tensor b, Tensor? bias=None, str rung=\"auto\", float alpha=1.0, bool transa=False, "
        "bool transb=False) -> Tensor");
  m.def("mm(Tensor a, Tensor b, str rung, float alpha) -> Tensor");
  m.def("mm_out(Tensor a, Tensor b, Tensor(a!) out, str rung, float alpha, float beta) -> ()");
  m.def("_plan(Tensor a, Tensor b, Tensor? out, Tensor? bias, bool transa, bool transb) -> int[]", &plan_of);
  m.def("_launch_log(bool enable) -> Tensor", &launch_log);
}

TORCH_LIBRARY_IMPL(sgemm_ladder, CUDA, m) {
  m.impl("gemm", &gemm_cuda);
  m.impl("mm", &mm_cuda);
  m.impl("mm_out", &mm_out_cuda);
}

// On the CPU the same checks run, so a CPU tensor gets the same message as from the Python path
// ("a is on cpu: sgemm_ladder runs on CUDA devices") rather than the dispatcher's.
TORCH_LIBRARY_IMPL(sgemm_ladder, CPU, m) {
  m.impl("gemm", &gemm_cuda);
  m.impl("mm", &mm_cuda);
  m.impl("mm_out", &mm_out_cuda);
}

TORCH_LIBRARY_IMPL(sgemm_ladder, Autograd, m) {
  m.impl("gemm", &gemm_autograd);
  m.impl("mm", &mm_autograd);
}
