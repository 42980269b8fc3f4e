/* Calls the installed library through its C ABI. Needs no GPU: the version, the registry and the
 * refusals of bad arguments all come before any GPU work. Exit 0 when all three are as expected. */
#include <stdio.h>
#include <string.h>

#include <sgemm_ladder.h>

int main(void) {
  const char* version = sgemm_ladder_version();
  const int count = sgemm_ladder_kernel_count();
  printf("sgemm_ladder %s (CMake package %s): %d kernels\n", version, PACKAGE_VERSION, count);
  if (strcmp(version, PACKAGE_VERSION) != 0) {
    fprintf(stderr, "the library says %s, its CMake package %s\n", version, PACKAGE_VERSION);
    return 1;
  }
  if (count < 1) {
    fprintf(stderr, "the registry is empty\n");
    return 1;
  }

  /* M = -1: refused with SGEMM_LADDER_ERR_INVALID_SIZE; the NULL operands are never touched. */
  const int status = sgemm_ladder_run(sgemm_ladder_kernel_id(0), -1, 1, 1, 1.0f, NULL, 1, NULL, 1,
                                      0.0f, NULL, 1, NULL);
  printf("M = -1: %s (%s)\n", sgemm_ladder_status_string(status), sgemm_ladder_last_error());
  if (status != SGEMM_LADDER_ERR_INVALID_SIZE) {
    fprintf(stderr, "expected status %d, got %d\n", SGEMM_LADDER_ERR_INVALID_SIZE, status);
    return 1;
  }

  /* transa = 'x': refused with SGEMM_LADDER_ERR_INVALID_TRANS by the general entry. */
  const int trans = sgemm_ladder_gemm(sgemm_ladder_kernel_id(0), 'x', 'N', 1, 1, 1, 1.0f, NULL, 1, 0, NULL, 1, 0,
                                      0.0f, NULL, 1, 0, NULL, 1, NULL);
  printf("transa = 'x': %s (%s)\n", sgemm_ladder_status_string(trans), sgemm_ladder_last_error());
  if (trans != SGEMM_LADDER_ERR_INVALID_TRANS) {
    fprintf(stderr, "expected status %d, got %d\n", SGEMM_LADDER_ERR_INVALID_TRANS, trans);
    return 1;
  }
  return 0;
}
