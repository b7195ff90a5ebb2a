// BOTS `health` for the C/C++ peers: the village tree, BOTS' generator and the
// hospital updates, function for function `benches/src/annotated/health.rs`
// (patient lists as vectors, sent-up patients through each child's `outgoing`
// list, admitted by id), so a parallel run leaves the tree exactly as the
// sequential reference does. Each runtime adds `sim_village` with a task per
// child village in omp.cpp / tbb.cpp.

#pragma once

#include <fstream>

#include "../peer.hpp"

namespace kernels {

constexpr int32_t kIA = 16807, kIM = 2147483647, kIQ = 127773, kIR = 2836, kMask = 123459876;
constexpr double kAM = 1.0 / double(kIM);

inline int32_t wrapping_mul(int32_t a, int32_t b) { return int32_t(uint32_t(a) * uint32_t(b)); }

// BOTS' `my_rand` (its int32_t version), the stored product wrapping.
inline float my_rand(int32_t* seed) {
    int32_t idum = *seed;
    idum ^= kMask;
    int32_t k = idum / kIQ;
    idum = kIA * (idum - k * kIQ) - kIR * k;
    idum ^= kMask;
    if (idum < 0) idum += kIM;
    *seed = wrapping_mul(idum, kIM);
    return float(kAM) * float(idum);
}

struct Simulation {
    int32_t level, cities, population_ratio, time, assess_time, convalescence_time, seed;
    float get_sick_p, convalescence_p, realloc_p;
    int64_t expected[8];  // population, hospitals, personnel, checkin, village, waiting, assess, inside
    float expected_avg_stay;
};

struct Patient {
    int32_t id, seed, time, time_left, hosps_visited;
    bool operator==(const Patient& o) const {
        return id == o.id && seed == o.seed && time == o.time && time_left == o.time_left && hosps_visited == o.hosps_visited;
    }
};

struct Hosp {
    int32_t personnel = 0, free_personnel = 0;
    std::vector<Patient> waiting, assess, inside, realloc;
    bool operator==(const Hosp& o) const {
        return personnel == o.personnel && free_personnel == o.free_personnel && waiting == o.waiting &&
               assess == o.assess && inside == o.inside && realloc == o.realloc;
    }
};

struct Village {
    int32_t id, level, seed;
    std::vector<Patient> population;
    Hosp hosp;
    std::vector<Patient> outgoing;
    std::vector<Village> children;
    bool operator==(const Village& o) const {
        return id == o.id && level == o.level && seed == o.seed && population == o.population && hosp == o.hosp &&
               outgoing == o.outgoing && children == o.children;
    }
};

// `parse_simulation`: 19 numbers, the ten parameters then the nine results.
inline Simulation read_simulation(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw peer::UsageError("health: cannot read " + path);
    Simulation s{};
    std::string w[19];
    for (auto& word : w)
        if (!(in >> word)) throw peer::UsageError("health: " + path + " has fewer than 19 numbers");
    auto int32 = [&](const std::string& t) {
        char* end = nullptr;
        long v = std::strtol(t.c_str(), &end, 10);
        if (*end != '\0' || v < INT32_MIN || v > INT32_MAX) throw peer::UsageError("health: `" + t + "` is not an integer");
        return int32_t(v);
    };
    auto real = [&](const std::string& t) {
        char* end = nullptr;
        float v = std::strtof(t.c_str(), &end);
        if (*end != '\0') throw peer::UsageError("health: `" + t + "` is not a number");
        return v;
    };
    s.level = int32(w[0]);
    s.cities = int32(w[1]);
    s.population_ratio = int32(w[2]);
    s.time = int32(w[3]);
    s.assess_time = int32(w[4]);
    s.convalescence_time = int32(w[5]);
    s.seed = int32(w[6]);
    s.get_sick_p = real(w[7]);
    s.convalescence_p = real(w[8]);
    s.realloc_p = real(w[9]);
    for (int i = 0; i < 8; i++) s.expected[i] = int32(w[10 + i]);
    s.expected_avg_stay = real(w[18]);
    if (s.level < 1 || s.level > 16 || s.cities < 1 || s.population_ratio < 0 || s.time < 0)
        throw peer::UsageError("health: parameters out of range");
    if (s.assess_time < 1 || s.convalescence_time < 1) throw peer::UsageError("health: stays must last a step at least");
    return s;
}

inline bool allocate_village(const Simulation& sim, int32_t level, int32_t vid, int32_t* pid, Village* out) {
    if (level == 0) return false;
    int32_t personnel = int32_t(1) << level;
    int32_t population = personnel * sim.population_ratio;
    int32_t seed = wrapping_mul(vid, kIQ + sim.seed);
    out->population.reserve(size_t(population));
    for (int32_t i = 0; i < population; i++) {
        out->population.push_back(Patient{*pid, seed, 0, 0, 0});
        (*pid)++;
        my_rand(&seed);
    }
    // BOTS allocates the children last to first.
    for (int32_t i = sim.cities; i >= 1; i--) {
        Village child;
        if (allocate_village(sim, level - 1, vid * sim.cities + i, pid, &child)) out->children.push_back(std::move(child));
    }
    std::reverse(out->children.begin(), out->children.end());
    out->id = vid;
    out->level = level;
    out->seed = seed;
    out->hosp.personnel = personnel;
    out->hosp.free_personnel = personnel;
    return true;
}

inline void put_in_hosp(Hosp& hosp, Patient p, const Simulation& sim) {
    p.hosps_visited++;
    if (hosp.free_personnel > 0) {
        hosp.free_personnel--;
        p.time_left = sim.assess_time;
        p.time += p.time_left;
        hosp.assess.push_back(p);
    } else {
        hosp.waiting.push_back(p);
    }
}

inline void check_patients_inside(Hosp& hosp, std::vector<Patient>& population) {
    std::vector<Patient> inside;
    inside.swap(hosp.inside);
    for (Patient p : inside) {
        p.time_left--;
        if (p.time_left == 0) {
            hosp.free_personnel++;
            population.push_back(p);
        } else {
            hosp.inside.push_back(p);
        }
    }
}

inline void check_patients_assess(Hosp& hosp, std::vector<Patient>& population, std::vector<Patient>& outgoing,
                                  int32_t level, const Simulation& sim) {
    std::vector<Patient> assess;
    assess.swap(hosp.assess);
    for (Patient p : assess) {
        p.time_left--;
        if (p.time_left != 0) {
            hosp.assess.push_back(p);
        } else if (my_rand(&p.seed) < sim.convalescence_p) {
            if (my_rand(&p.seed) > sim.realloc_p || level == sim.level) {
                p.time_left = sim.convalescence_time;
                p.time += p.time_left;
                hosp.inside.push_back(p);
            } else {
                hosp.free_personnel++;
                outgoing.push_back(p);
            }
        } else {
            hosp.free_personnel++;
            population.push_back(p);
        }
    }
}

inline void check_patients_waiting(Hosp& hosp, const Simulation& sim) {
    std::vector<Patient> waiting;
    waiting.swap(hosp.waiting);
    for (Patient p : waiting) {
        if (hosp.free_personnel > 0) {
            hosp.free_personnel--;
            p.time_left = sim.assess_time;
            p.time += p.time_left;
            hosp.assess.push_back(p);
        } else {
            p.time++;
            hosp.waiting.push_back(p);
        }
    }
}

inline void check_patients_realloc(Hosp& hosp, const Simulation& sim) {
    std::vector<Patient> realloc;
    realloc.swap(hosp.realloc);
    std::sort(realloc.begin(), realloc.end(), [](const Patient& a, const Patient& b) { return a.id < b.id; });
    for (const Patient& p : realloc) put_in_hosp(hosp, p, sim);
    realloc.clear();
    hosp.realloc.swap(realloc);  // keep the buffer
}

inline void check_patients_population(Hosp& hosp, std::vector<Patient>& population, const Simulation& sim) {
    std::vector<Patient> people;
    people.swap(population);
    for (Patient p : people) {
        if (my_rand(&p.seed) < sim.get_sick_p)
            put_in_hosp(hosp, p, sim);
        else
            population.push_back(p);
    }
}

// The village's own update while its children run (before the taskwait).
inline void village_before_children_join(Village& v, const Simulation& sim) {
    check_patients_inside(v.hosp, v.population);
    check_patients_assess(v.hosp, v.population, v.outgoing, v.level, sim);
    check_patients_waiting(v.hosp, sim);
}

// The village's update after its children are done: admit what they sent up.
inline void village_after_children_join(Village& v, const Simulation& sim) {
    for (Village& child : v.children) {
        v.hosp.realloc.insert(v.hosp.realloc.end(), child.outgoing.begin(), child.outgoing.end());
        child.outgoing.clear();
    }
    check_patients_realloc(v.hosp, sim);
    check_patients_population(v.hosp, v.population, sim);
}

// `sim_main_seq`'s step: the children first, then the village.
inline void sim_village_seq(Village& v, const Simulation& sim) {
    for (Village& child : v.children) sim_village_seq(child, sim);
    village_before_children_join(v, sim);
    village_after_children_join(v, sim);
}

// `get_results`: population, hospitals, personnel, checkin, village, waiting,
// assess, inside, total_time.
inline void get_results(const Village& v, int64_t r[9]) {
    for (const Village& c : v.children) get_results(c, r);
    r[1] += 1;
    r[2] += v.hosp.personnel;
    const std::vector<Patient>* lists[4] = {&v.population, &v.hosp.waiting, &v.hosp.assess, &v.hosp.inside};
    for (int l = 0; l < 4; l++) {
        r[4 + l] += int64_t(lists[l]->size());
        r[0] += int64_t(lists[l]->size());
        for (const Patient& p : *lists[l]) {
            r[3] += p.hosps_visited;
            r[8] += p.time;
        }
    }
}

// The checksum of a village tree: each village before its children, as id,
// level, seed, then each list (population, hospital staff, waiting, assess,
// inside, realloc, outgoing) as its length (u64) and its patients (five i32
// each), then the number of children (u64).
inline void hash_village(peer::Fnv1a& h, const Village& v) {
    h.value(v.id);
    h.value(v.level);
    h.value(v.seed);
    auto list = [&](const std::vector<Patient>& ps) {
        h.value(uint64_t(ps.size()));
        for (const Patient& p : ps) {
            h.value(p.id);
            h.value(p.seed);
            h.value(p.time);
            h.value(p.time_left);
            h.value(p.hosps_visited);
        }
    };
    list(v.population);
    h.value(v.hosp.personnel);
    h.value(v.hosp.free_personnel);
    list(v.hosp.waiting);
    list(v.hosp.assess);
    list(v.hosp.inside);
    list(v.hosp.realloc);
    list(v.outgoing);
    h.value(uint64_t(v.children.size()));
    for (const Village& c : v.children) hash_village(h, c);
}

// `health FILE [STEPS]`: BOTS' health simulation of the input FILE, for STEPS
// time steps instead of the file's own count if given. The reference is the
// sequential simulation; without STEPS it must give the statistics the file
// records (BOTS' check).
struct Health : peer::Workload {
    static constexpr bool kSetup = true;
    Simulation sim;
    Village village, reference, top;
    explicit Health(const peer::Context& cx) {
        if (cx.args.size() != 1 && cx.args.size() != 2) throw peer::UsageError("health: takes FILE [STEPS]");
        sim = read_simulation(cx.text(0, "FILE"));
        if (cx.args.size() == 2) {
            uint64_t steps = cx.u64(1, "STEPS");
            if (steps > 100000) throw peer::UsageError("health: STEPS above 100000");
            sim.time = int32_t(steps);
        }
        int32_t pid = 0;
        allocate_village(sim, sim.level, 0, &pid, &village);
        reference = village;
        for (int32_t t = 0; t < sim.time; t++) sim_village_seq(reference, sim);
        if (cx.args.size() == 1) {
            int64_t r[9] = {0};
            get_results(reference, r);
            for (int i = 0; i < 8; i++)
                if (r[i] != sim.expected[i])
                    throw std::runtime_error("health reference: statistic " + std::to_string(i) + " is " +
                                             std::to_string(r[i]) + ", BOTS expects " + std::to_string(sim.expected[i]));
        }
    }
    void setup() { top = village; }
    void seq() {
        for (int32_t t = 0; t < sim.time; t++) sim_village_seq(top, sim);
    }
    std::string check() const {
        return top == reference ? "" : "health: the village tree differs from the sequential reference's";
    }
    std::string checksum() const {
        peer::Fnv1a h;
        hash_village(h, top);
        return h.hex();
    }
};

}  // namespace kernels
