// Token + position embedding lookup: out[t][:] = scale * tok_table[ids[t]][:] + pos_table[t % seq_len][:].
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) check((x), #x, __LINE__)
static void check(cudaError_t e, const char *expr, int line)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "line %d: %s failed: %s\n", line, expr, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

struct EmbedArgs {
    const int   *token_ids;  // [ntok]
    const float *tok_table;  // [vocab][dim]
    const float *pos_table;  // [seq_len][dim]
    float       *out;        // [ntok][dim]
    int ntok;
    int seq_len;
    int dim;
    float scale;
};

__global__ void embed_lookup(EmbedArgs a)
{
    int t = blockIdx.y;                              // token
    int d = blockIdx.x * blockDim.x + threadIdx.x;   // feature
    if (t < a.ntok && d < a.dim) {
        int id = a.token_ids[t];
        int p = t % a.seq_len;
        a.out[(size_t)t * a.dim + d] =
            a.tok_table[(size_t)id * a.dim + d] * a.scale + a.pos_table[(size_t)p * a.dim + d];
    }
}

int main()
{
    const int vocab = 32000, dim = 768, seq_len = 1024, batch = 32;
    const int ntok = batch * seq_len;

    std::vector<int> ids(ntok);
    std::vector<float> tok((size_t)vocab * dim), pos((size_t)seq_len * dim);
    std::vector<float> out((size_t)ntok * dim);
    for (int t = 0; t < ntok; ++t)
        ids[t] = (int)(((long long)t * 7919 + 13) % vocab);
    for (size_t i = 0; i < tok.size(); ++i)
        tok[i] = (float)((int)(i % 2003) - 1001) * 1e-4f;
    for (int p = 0; p < seq_len; ++p)
        for (int d = 0; d < dim; ++d)
            pos[(size_t)p * dim + d] = (d % 2 == 0) ? sinf(p / powf(10000.0f, (float)d / dim))
                                                    : cosf(p / powf(10000.0f, (float)(d - 1) / dim));

    int *d_ids;
    float *d_tok, *d_pos, *d_out;
    CHECK(cudaMalloc(&d_ids, ntok * sizeof(int)));
    CHECK(cudaMalloc(&d_tok, tok.size() * sizeof(float)));
    CHECK(cudaMalloc(&d_pos, pos.size() * sizeof(float)));
    CHECK(cudaMalloc(&d_out, out.size() * sizeof(float)));
    CHECK(cudaMemcpy(d_ids, ids.data(), ntok * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_tok, tok.data(), tok.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_pos, pos.data(), pos.size() * sizeof(float), cudaMemcpyHostToDevice));

    EmbedArgs args;
    args.token_ids = d_ids;
    args.tok_table = d_tok;
    args.pos_table = d_pos;
    args.out = d_out;
    args.ntok = ntok;
    args.seq_len = seq_len;
    args.dim = dim;
    args.scale = sqrtf((float)dim);

    dim3 block(128);
    dim3 grid((dim + block.x - 1) / block.x, ntok);
    embed_lookup<<<grid, block>>>(args);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));

    double checksum = 0.0;
    for (size_t i = 0; i < out.size(); ++i)
        checksum += out[i] * (double)((i % 7) + 1);
    printf("embedding lookup: %d tokens x %d dims (vocab %d)\n", ntok, dim, vocab);
    printf("out[0]=%.6f out[last]=%.6f checksum %.6f\n", out[0], out.back(), checksum);

    CHECK(cudaFree(d_ids));
    CHECK(cudaFree(d_tok));
    CHECK(cudaFree(d_pos));
    CHECK(cudaFree(d_out));
    return 0;
}
