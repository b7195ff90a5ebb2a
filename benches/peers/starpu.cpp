// The StarPU peer (`prescient-peer-starpu`): the dataflow table's programs —
// two-wave, blocked Cholesky, matmul and SparseLU — as StarPU 1.3 tasks on
// registered data, built by `benches/build.rs` against the distribution's
// libstarpu (CPU workers only). The inputs, tile kernels and checks are the
// shared ones in kernels/dataflow.hpp, which mirror the Rust programs; this
// file holds StarPU's idiom of the same task graph:
//
// * each tile is a data handle (`starpu_vector_data_register` on the tile's
//   memory), registered when a run starts and unregistered when it ends, as a
//   Prescient `dataflow` region makes its tiles per run;
// * each kernel call is `starpu_task_insert` of a codelet with the tile
//   accesses in the Rust program's modes (`in` = STARPU_R, `out` = STARPU_W,
//   `inout` = STARPU_RW), submitted in the same order by the main thread;
// * `starpu_task_wait_for_all` ends the run.
//
// StarPU runs tasks on its N CPU workers (`starpu_conf.ncpus`); the
// submitting main thread does not run tasks, as StarPU is designed. The
// scheduler, binding and everything else are StarPU's defaults. StarPU is
// started lazily by the first parallel run (the untimed warm-up).

#include <starpu.h>

#include "kernels/dataflow.hpp"
#include "peer.hpp"

using namespace kernels;

namespace {

int workers = 1;
bool started = false;

void start() {
    if (started) return;
    setenv("STARPU_SILENT", "1", 0);
    struct starpu_conf conf;
    starpu_conf_init(&conf);
    conf.ncpus = workers;
    conf.ncuda = 0;
    conf.nopencl = 0;
    int ret = starpu_init(&conf);
    if (ret != 0) throw std::runtime_error("starpu_init failed (" + std::to_string(ret) + ")");
    started = true;
}

// The tiles of one run as StarPU handles, unregistered at the end of the run.
class Handles {
  public:
    template <class T>
    Handles(T* data, size_t tiles, size_t tile_len) : handles_(tiles) {
        for (size_t t = 0; t < tiles; t++)
            starpu_vector_data_register(&handles_[t], STARPU_MAIN_RAM, uintptr_t(data + t * tile_len), uint32_t(tile_len),
                                        sizeof(T));
    }
    ~Handles() {
        for (starpu_data_handle_t h : handles_) starpu_data_unregister(h);
    }
    starpu_data_handle_t operator[](size_t t) const { return handles_[t]; }

  private:
    std::vector<starpu_data_handle_t> handles_;
};

template <class T>
T* tile(void* buffers[], int i) {
    return reinterpret_cast<T*>(STARPU_VECTOR_GET_PTR(buffers[i]));
}

void check_insert(int ret) {
    if (ret != 0) throw std::runtime_error("starpu_task_insert failed (" + std::to_string(ret) + ")");
}

// A CPU codelet of `n` buffers in `modes`.
struct Codelet {
    struct starpu_codelet cl;
    Codelet(starpu_cpu_func_t f, std::initializer_list<starpu_data_access_mode> modes, const char* name) {
        starpu_codelet_init(&cl);
        cl.cpu_funcs[0] = f;
        cl.nbuffers = int(modes.size());
        int i = 0;
        for (auto m : modes) cl.modes[i++] = m;
        cl.name = name;
    }
};

// ---- two-wave ----

void wave1(void* buffers[], void* arg) {
    size_t i, steps;
    starpu_codelet_unpack_args(arg, &i, &steps);
    tile<double>(buffers, 0)[0] = chain(two_wave_seed(i), steps);
}

void wave2(void* buffers[], void* arg) {
    size_t steps;
    starpu_codelet_unpack_args(arg, &steps);
    double* v = tile<double>(buffers, 0);
    v[0] = chain(v[0], steps);
}

Codelet wave1_cl(wave1, {STARPU_W}, "two-wave-1");
Codelet wave2_cl(wave2, {STARPU_RW}, "two-wave-2");

struct TwoWaveStarpu : TwoWave {
    using TwoWave::TwoWave;
    void par() {
        start();
        std::vector<double> values(tasks, 0.0);
        {
            Handles h(values.data(), tasks, 1);
            size_t steps = size;
            for (size_t i = 0; i < tasks; i++)
                check_insert(starpu_task_insert(&wave1_cl.cl, STARPU_W, h[i], STARPU_VALUE, &i, sizeof i, STARPU_VALUE,
                                                &steps, sizeof steps, 0));
            for (size_t i = 0; i < tasks; i++)
                check_insert(starpu_task_insert(&wave2_cl.cl, STARPU_RW, h[i], STARPU_VALUE, &steps, sizeof steps, 0));
            starpu_task_wait_for_all();
        }
        result = std::move(values);
    }
};

// ---- cholesky ----

size_t unpack_bs(void* arg) {
    size_t bs;
    starpu_codelet_unpack_args(arg, &bs);
    return bs;
}

void potrf_cpu(void* b[], void* arg) { potrf(tile<double>(b, 0), unpack_bs(arg)); }
void trsm_cpu(void* b[], void* arg) { trsm(tile<double>(b, 0), tile<double>(b, 1), unpack_bs(arg)); }
void gemm_nt_cpu(void* b[], void* arg) { gemm_nt(tile<double>(b, 0), tile<double>(b, 1), tile<double>(b, 2), unpack_bs(arg)); }
void syrk_cpu(void* b[], void* arg) { syrk(tile<double>(b, 0), tile<double>(b, 1), unpack_bs(arg)); }

Codelet potrf_cl(potrf_cpu, {STARPU_RW}, "potrf");
Codelet trsm_cl(trsm_cpu, {STARPU_R, STARPU_RW}, "trsm");
Codelet gemm_nt_cl(gemm_nt_cpu, {STARPU_R, STARPU_R, STARPU_RW}, "gemm_nt");
Codelet syrk_cl(syrk_cpu, {STARPU_R, STARPU_RW}, "syrk");

// As in omp.cpp: a run copies the input (the Rust runs clone it); `setup`
// frees the previous result before the clock.
struct CholeskyStarpu : Cholesky {
    static constexpr bool kSetup = true;
    using Cholesky::Cholesky;
    void setup() { result = Tiled{}; }
    void par() {
        start();
        Tiled m = original;
        size_t nb = m.nb, bs = m.bs;
        {
            Handles h(m.data.data(), nb * nb, bs * bs);
            auto at = [&](size_t i, size_t j) { return h[i * nb + j]; };
            for (size_t k = 0; k < nb; k++) {
                check_insert(starpu_task_insert(&potrf_cl.cl, STARPU_RW, at(k, k), STARPU_VALUE, &bs, sizeof bs, 0));
                for (size_t i = k + 1; i < nb; i++)
                    check_insert(starpu_task_insert(&trsm_cl.cl, STARPU_R, at(k, k), STARPU_RW, at(i, k), STARPU_VALUE,
                                                    &bs, sizeof bs, 0));
                for (size_t i = k + 1; i < nb; i++) {
                    for (size_t j = k + 1; j < i; j++)
                        check_insert(starpu_task_insert(&gemm_nt_cl.cl, STARPU_R, at(i, k), STARPU_R, at(j, k), STARPU_RW,
                                                        at(i, j), STARPU_VALUE, &bs, sizeof bs, 0));
                    check_insert(starpu_task_insert(&syrk_cl.cl, STARPU_R, at(i, k), STARPU_RW, at(i, i), STARPU_VALUE, &bs,
                                                    sizeof bs, 0));
                }
            }
            starpu_task_wait_for_all();
        }
        result = std::move(m);
    }
};

// ---- matmul ----

void gemm_cpu(void* b[], void* arg) { gemm(tile<double>(b, 0), tile<double>(b, 1), tile<double>(b, 2), unpack_bs(arg)); }

Codelet gemm_cl(gemm_cpu, {STARPU_R, STARPU_R, STARPU_RW}, "gemm");

struct MatmulStarpu : Matmul {
    static constexpr bool kSetup = true;
    using Matmul::Matmul;
    void setup() { result = MatmulProblem{}; }
    void par() {
        start();
        MatmulProblem p = original;
        size_t nb = p.nb, bs = p.bs, tile_len = bs * bs, n2 = nb * nb;
        {
            Handles a(p.a.data(), n2, tile_len), b(p.b.data(), n2, tile_len), c(p.c.data(), n2, tile_len);
            for (size_t i = 0; i < nb; i++)
                for (size_t j = 0; j < nb; j++)
                    for (size_t k = 0; k < nb; k++)
                        check_insert(starpu_task_insert(&gemm_cl.cl, STARPU_R, a[i * nb + k], STARPU_R, b[k * nb + j],
                                                        STARPU_RW, c[i * nb + j], STARPU_VALUE, &bs, sizeof bs, 0));
            starpu_task_wait_for_all();
        }
        result = std::move(p);
    }
};

// ---- sparselu ----

void lu0_cpu(void* b[], void* arg) { lu0(tile<float>(b, 0), unpack_bs(arg)); }
void fwd_cpu(void* b[], void* arg) { fwd(tile<float>(b, 0), tile<float>(b, 1), unpack_bs(arg)); }
void bdiv_cpu(void* b[], void* arg) { bdiv(tile<float>(b, 0), tile<float>(b, 1), unpack_bs(arg)); }
void bmod_cpu(void* b[], void* arg) { bmod(tile<float>(b, 0), tile<float>(b, 1), tile<float>(b, 2), unpack_bs(arg)); }

Codelet lu0_cl(lu0_cpu, {STARPU_RW}, "lu0");
Codelet fwd_cl(fwd_cpu, {STARPU_R, STARPU_RW}, "fwd");
Codelet bdiv_cl(bdiv_cpu, {STARPU_R, STARPU_RW}, "bdiv");
Codelet bmod_cl(bmod_cpu, {STARPU_R, STARPU_R, STARPU_RW}, "bmod");

struct SparseluDataflowStarpu : SparseluDataflow {
    static constexpr bool kSetup = true;
    using SparseluDataflow::SparseluDataflow;
    void setup() { result = SparseMatrix{}; }
    void par() {
        start();
        SparseMatrix m = original;
        size_t nb = m.nb, bs = m.bs;
        {
            Handles h(m.blocks.data(), nb * nb, bs * bs);
            auto at = [&](size_t i, size_t j) { return h[i * nb + j]; };
            for (size_t kk = 0; kk < nb; kk++) {
                check_insert(starpu_task_insert(&lu0_cl.cl, STARPU_RW, at(kk, kk), STARPU_VALUE, &bs, sizeof bs, 0));
                for (size_t jj = kk + 1; jj < nb; jj++)
                    if (m.present[kk * nb + jj])
                        check_insert(starpu_task_insert(&fwd_cl.cl, STARPU_R, at(kk, kk), STARPU_RW, at(kk, jj),
                                                        STARPU_VALUE, &bs, sizeof bs, 0));
                for (size_t ii = kk + 1; ii < nb; ii++)
                    if (m.present[ii * nb + kk])
                        check_insert(starpu_task_insert(&bdiv_cl.cl, STARPU_R, at(kk, kk), STARPU_RW, at(ii, kk),
                                                        STARPU_VALUE, &bs, sizeof bs, 0));
                for (size_t ii = kk + 1; ii < nb; ii++) {
                    if (!m.present[ii * nb + kk]) continue;
                    for (size_t jj = kk + 1; jj < nb; jj++)
                        if (m.present[kk * nb + jj]) {
                            m.present[ii * nb + jj] = 1;  // allocate_clean_block
                            check_insert(starpu_task_insert(&bmod_cl.cl, STARPU_R, at(ii, kk), STARPU_R, at(kk, jj),
                                                            STARPU_RW, at(ii, jj), STARPU_VALUE, &bs, sizeof bs, 0));
                        }
                }
            }
            starpu_task_wait_for_all();
        }
        result = std::move(m);
    }
};

// ---- the runtime's hooks ----

std::string version() {
    int major, minor, release;
    starpu_get_version(&major, &minor, &release);
    return "StarPU " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release) +
           " (CPU workers), g++ " + __VERSION__;
}

void set_threads(int threads) { workers = threads; }

void enclose(const std::function<void()>& body) { body(); }

using peer::drive;
using peer::Entry;

const std::vector<peer::Program> kPrograms = {
    {"two-wave", "TASKS SIZE", drive<TwoWaveStarpu, Entry::PerRun>},
    {"cholesky", "NB BS", drive<CholeskyStarpu, Entry::PerRun>},
    {"matmul", "NB BS", drive<MatmulStarpu, Entry::PerRun>},
    {"sparselu-dataflow", "NB BS", drive<SparseluDataflowStarpu, Entry::PerRun>},
};

}  // namespace

int main(int argc, char** argv) {
    peer::Runtime rt{"starpu", version, set_threads, enclose};
    int status = peer::main(argc, argv, rt, kPrograms);
    if (started) starpu_shutdown();
    return status;
}
