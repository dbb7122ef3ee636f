// test: kernel=offsets rewrite=warp-per-row lanes=32 cache=0
// expect: applies
// expect-output: int wl_exclusive = __shfl_up_sync(0xffffffffu, wl_inclusive, 1);
// expect-output: start[(size_t)b * nbins + j] = (acc + wl_exclusive);
// expect-output: total[b] = acc;
// Exclusive offsets from counts, per batch (the write comes before the add:
// each element sees the sum of the earlier ones), then the total by lane 0.
__global__ void offsets(const int* counts, int* start, int* total, int batches, int nbins) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < batches) {
    int acc = 0;
    for (int j = 0; j < nbins; j++) {
      start[(size_t)b * nbins + j] = acc;
      acc += counts[(size_t)b * nbins + j];
    }
    total[b] = acc;
  }
}
void run(const int* counts, int* start, int* total, int batches, int nbins) {
  offsets<<<(batches + 127) / 128, 128>>>(counts, start, total, batches, nbins);
}
