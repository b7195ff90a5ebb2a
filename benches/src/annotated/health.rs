//! BOTS `health`, annotated with `#[task_program]`: a simulation of the
//! Colombian health-care system over a tree of villages.
//!
//! A Rust port of the Barcelona OpenMP Tasks Suite's `health` (from the Olden
//! suite), in its variant without a cut-off. The input fixes a tree of
//! villages `level` deep with `cities` children each ([`allocate_village`]);
//! a village at level `l` has a hospital with `2^l` staff and `2^l ×
//! population_ratio` inhabitants, each with his own seed of BOTS' random
//! generator ([`my_rand`], a Park–Miller minimal standard step on an
//! `int32_t` seed, ported exactly, wrapping overflows included). Every time
//! step ([`tasks::sim_village`]) each village first simulates its child
//! villages — one task per child (`#pragma omp task` in the loop over the
//! children, here [`prescient::scope`]'s spawn in a `for`), recursing down
//! the tree — while it updates its own hospital: patients inside count down
//! their convalescence and go home; patients in assessment either go home,
//! stay for convalescence, or (with probability `realloc_p`, not at the root)
//! are sent to the parent village's hospital; waiting patients get free
//! staff. After the children are done (`taskwait`) the village admits the
//! patients its children sent up, lowest patient id first, and each
//! inhabitant falls sick with probability `get_sick_p` and checks in.
//! [`tasks::sim_main`] runs `time` steps on the root.
//!
//! The only data crossing villages is the list of patients a child sends to
//! its parent; BOTS appends them to the parent's `realloc` list under a lock
//! (the child's own lock, a race in BOTS that an unordered admission hides),
//! here each child leaves them in its own [`Village::outgoing`] list and the
//! parent collects them after the scope, so the tasks share nothing mutable
//! and the village tree is split with `iter_mut` (safe Rust, no lock). Since
//! the parent admits them in patient-id order either way, the simulation is
//! deterministic: every run leaves the tree exactly as the sequential
//! reference does, patient for patient.
//!
//! **What the analysis finds.** One task context, [`sim_village`], with one
//! spawn site inside the loop over the children (λ = 1) whose task calls
//! `sim_village` back: one recursive parallel path (ρ = 1). Like nqueens and
//! floorplan this is the *recursive* class for CF'17's trees, which would
//! give queue policy `DEF` (ρ = 1 ≤ 5, effort below the 1M coarse band —
//! the task body is the one recursive call `sim_village(child, sim)`, an
//! effort of 2, since the analysis does not count into a recursion; the
//! village's own list work is done by the spawning context), capacity 4 and
//! 256019 dependency buckets. The calibrated trees (`PARAMS`) give `BF` and
//! capacity 32 (effort 2 < 7667: fine or opaque tasks, BF/32 — the analysis
//! saw none of the task's real work), with the same buckets. The
//! recursion's depth (the tree's levels, from the input) is not bounded by
//! the analysis: the conservative 8 MiB stack.
//!
//! **Differences from BOTS.** (1) Patient lists are vectors of patients
//! (moved between them in BOTS' order: kept ones in place, moved ones
//! appended) instead of doubly linked lists of heap nodes; a patient's
//! `home_village` pointer, never read by BOTS, is dropped. (2) Sent-up
//! patients travel through the child's `outgoing` list instead of a locked
//! append to the parent's `realloc` list (see above); the admission order
//! (by id) is BOTS'. (3) The tree is a vector of children per village, in
//! BOTS' `forward`/`next` order (child `vid × cities + 1` first), with
//! patient ids handed out in BOTS' allocation order (the last child first).
//! (4) The statistics are summed in integers (BOTS sums them in `float`,
//! exact while the sums stay below 2^24, as they do for test, small and
//! medium). (5) BOTS' `int32_t` overflows (the village seed `vid × (IQ +
//! seed)` on large trees, the stored seed `idum × IM` always) are undefined
//! in C and wrap with the usual compilers; here they wrap explicitly. An
//! older BOTS `my_rand` on `long` seeds gives another sequence, which does
//! not reproduce the statistics the input files record; this port follows
//! the current one, which does (checked on test and small, see the tests
//! and the suite's measurements).
//!
//! The annotated module is [`tasks`]; its [`PARAMS`] and [`ANALYSIS`] are
//! re-exported here. The sequential reference [`sim_main_seq`] runs the same
//! steps without tasks; the parallel tree must equal it ([`Village`] is
//! `PartialEq`), and both must give the statistics the BOTS input file
//! records ([`Simulation::expected`], BOTS' `check_village`).
//!
//! Inputs: BOTS' `test.input`, `small.input` and `medium.input` in
//! `benches/data/health/` ([`test`](fn@test), [`small`], [`medium`]; see `SOURCE.md`
//! there).

use std::path::{Path, PathBuf};

pub use tasks::{sim_main, sim_village, ANALYSIS, PARAMS};

/// BOTS' test input: 3 levels of 18 cities, 343 villages, 7280 people.
pub fn test() -> PathBuf {
    crate::data::input("health/test.input")
}

/// BOTS' small input: 4 levels of 18 cities, 6175 villages, 131 200 people.
pub fn small() -> PathBuf {
    crate::data::input("health/small.input")
}

/// BOTS' medium input, the paper's: 4 levels of 36 cities, 47 989 villages,
/// 988 000 people.
pub fn medium() -> PathBuf {
    crate::data::input("health/medium.input")
}

/// The paper's input.
pub fn paper_input() -> PathBuf {
    medium()
}

/// The input the integration tests run under both build profiles.
pub fn test_input() -> PathBuf {
    test()
}

/// BOTS' `IA`: the generator's multiplier.
const IA: i32 = 16807;
/// BOTS' `IM`: the generator's modulus, 2^31 - 1.
const IM: i32 = 2_147_483_647;
/// BOTS' `AM`: `1.0 / IM`, a `double` (cast to `float` where used).
const AM: f64 = 1.0 / IM as f64;
/// BOTS' `IQ`: `IM / IA` (Schrage's method).
const IQ: i32 = 127_773;
/// BOTS' `IR`: `IM % IA`.
const IR: i32 = 2836;
/// BOTS' `MASK`, XORed into the state around each step.
const MASK: i32 = 123_459_876;

/// BOTS' `my_rand` (its current `int32_t` version): one step of the minimal
/// standard generator with Schrage's multiplication, returning `(float) AM *
/// idum` in `[0, 1)` and storing back `idum * IM` — a product that
/// overflows 32 bits, which C compilers wrap (signed overflow is undefined
/// in C; here it is [`i32::wrapping_mul`]). The wrapped seeds are part of
/// BOTS' sequence, and of the results its input files record.
pub fn my_rand(seed: &mut i32) -> f32 {
    let mut idum = *seed;
    idum ^= MASK;
    let k = idum / IQ;
    idum = IA * (idum - k * IQ) - IR * k;
    idum ^= MASK;
    if idum < 0 {
        idum += IM;
    }
    *seed = idum.wrapping_mul(IM);
    (AM as f32) * (idum as f32)
}

/// The statistics BOTS' `check_village` compares (its `res_*` inputs and
/// `struct Results`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Statistics {
    /// Every patient, wherever he is (`total_patients`).
    pub population: i64,
    /// The number of villages, one hospital each (`hosps_number`).
    pub hospitals: i64,
    /// The staff of all hospitals (`hosps_personnel`).
    pub personnel: i64,
    /// Check-ins, summed over patients (`total_hosps_v`).
    pub checkin: i64,
    /// Patients at home (`total_in_village`).
    pub village: i64,
    /// Patients waiting (`total_waiting`).
    pub waiting: i64,
    /// Patients in assessment (`total_assess`).
    pub assess: i64,
    /// Patients in convalescence (`total_inside`).
    pub inside: i64,
    /// Time spent in hospitals, summed over patients (`total_time`).
    pub total_time: i64,
}

impl Statistics {
    /// The average stay, `total_time / population` in `float` as BOTS prints
    /// it.
    pub fn avg_stay(&self) -> f32 {
        self.total_time as f32 / self.population as f32
    }
}

/// A simulation input (BOTS' `read_input_data`): the `sim_*` parameters and
/// the expected `res_*` statistics.
#[derive(Clone, Debug, PartialEq)]
pub struct Simulation {
    /// The tree's depth; the root is at this level (`sim_level`).
    pub level: i32,
    /// Children per village (`sim_cities`).
    pub cities: i32,
    /// Inhabitants per staff member (`sim_population_ratio`).
    pub population_ratio: i32,
    /// Time steps (`sim_time`).
    pub time: i32,
    /// Steps of an assessment (`sim_assess_time`).
    pub assess_time: i32,
    /// Steps of a convalescence (`sim_convalescence_time`).
    pub convalescence_time: i32,
    /// The seed all village seeds derive from (`sim_seed`).
    pub seed: i32,
    /// The chance to fall sick in a step (`sim_get_sick_p`).
    pub get_sick_p: f32,
    /// The chance an assessed patient needs convalescence
    /// (`sim_convalescence_p`).
    pub convalescence_p: f32,
    /// The chance such a patient is sent to the parent's hospital
    /// (`sim_realloc_p`).
    pub realloc_p: f32,
    /// The statistics BOTS expects after the run (`res_*`).
    pub expected: Statistics,
    /// The average stay BOTS expects (`res_avg_stay`, printed to 6 places).
    pub expected_avg_stay: f32,
}

pub use super::input::ReadError;

/// Parses an input in BOTS' format: 19 white-space separated numbers, the
/// ten `sim_*` parameters then the nine `res_*` results.
pub fn parse_simulation(text: &str) -> Result<Simulation, ReadError> {
    let mut words = text.split_whitespace();
    let mut word = || {
        words
            .next()
            .ok_or_else(|| ReadError::Format("fewer than 19 numbers".into()))
    };
    fn num<T: std::str::FromStr>(w: &str) -> Result<T, ReadError> {
        w.parse()
            .map_err(|_| ReadError::Format(format!("{w:?} is not a number")))
    }
    let level: i32 = num(word()?)?;
    let cities: i32 = num(word()?)?;
    let population_ratio: i32 = num(word()?)?;
    let time: i32 = num(word()?)?;
    let assess_time: i32 = num(word()?)?;
    let convalescence_time: i32 = num(word()?)?;
    let seed: i32 = num(word()?)?;
    let get_sick_p: f32 = num(word()?)?;
    let convalescence_p: f32 = num(word()?)?;
    let realloc_p: f32 = num(word()?)?;
    let mut expected = Statistics::default();
    for field in [
        &mut expected.population,
        &mut expected.hospitals,
        &mut expected.personnel,
        &mut expected.checkin,
        &mut expected.village,
        &mut expected.waiting,
        &mut expected.assess,
        &mut expected.inside,
    ] {
        *field = num(word()?)?;
    }
    let expected_avg_stay: f32 = num(word()?)?;
    if !(1..=16).contains(&level) || cities < 1 || population_ratio < 0 || time < 0 {
        return Err(ReadError::Format("parameters out of range".into()));
    }
    if assess_time < 1 || convalescence_time < 1 {
        return Err(ReadError::Format("stays must last a step at least".into()));
    }
    Ok(Simulation {
        level,
        cities,
        population_ratio,
        time,
        assess_time,
        convalescence_time,
        seed,
        get_sick_p,
        convalescence_p,
        realloc_p,
        expected,
        expected_avg_stay,
    })
}

/// Reads and parses an input file (see [`parse_simulation`]).
pub fn read_simulation(path: impl AsRef<Path>) -> Result<Simulation, ReadError> {
    let text = std::fs::read_to_string(path).map_err(ReadError::Io)?;
    parse_simulation(&text)
}

/// A patient (BOTS' `struct Patient` less its list links and its unused
/// `home_village`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Patient {
    /// Unique, in allocation order (BOTS' `sim_pid`).
    pub id: i32,
    /// The patient's generator state.
    pub seed: i32,
    /// Steps spent in hospitals.
    pub time: i32,
    /// Steps left of the current assessment or convalescence.
    pub time_left: i32,
    /// Check-ins so far.
    pub hosps_visited: i32,
}

/// A village's hospital (BOTS' `struct Hosp`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hosp {
    /// The staff.
    pub personnel: i32,
    /// The staff not assessing anyone.
    pub free_personnel: i32,
    /// Patients waiting for staff.
    pub waiting: Vec<Patient>,
    /// Patients being assessed.
    pub assess: Vec<Patient>,
    /// Patients in convalescence.
    pub inside: Vec<Patient>,
    /// Patients sent up by the child villages, to admit (empty between steps).
    pub realloc: Vec<Patient>,
}

/// A village (BOTS' `struct Village`) with its subtree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Village {
    /// BOTS' village id: the root 0, child `i` (1-based) of `v` is
    /// `v × cities + i`.
    pub id: i32,
    /// The level: the root at the input's `level`, leaves at 1.
    pub level: i32,
    /// The village's generator state (used only to seed its inhabitants).
    pub seed: i32,
    /// The inhabitants at home.
    pub population: Vec<Patient>,
    /// The hospital.
    pub hosp: Hosp,
    /// Patients this village sends to its parent's hospital this step (BOTS
    /// appends them to the parent's `realloc` list directly).
    pub outgoing: Vec<Patient>,
    /// The child villages, in BOTS' list order.
    pub children: Vec<Village>,
}

/// Builds the village tree (BOTS' `allocate_village(&top, NULL, NULL, level,
/// 0)`); patient ids in BOTS' allocation order.
pub fn allocate_village(sim: &Simulation) -> Village {
    fn allocate(sim: &Simulation, level: i32, vid: i32, pid: &mut i32) -> Option<Village> {
        if level == 0 {
            return None;
        }
        let personnel = 1i32 << level;
        let population = personnel * sim.population_ratio;
        // BOTS' `int32_t` product, wrapping on the larger trees.
        let mut seed = vid.wrapping_mul(IQ + sim.seed);
        let mut inhabitants = Vec::with_capacity(population as usize);
        for _ in 0..population {
            inhabitants.push(Patient {
                id: *pid,
                seed,
                time: 0,
                time_left: 0,
                hosps_visited: 0,
            });
            *pid += 1;
            my_rand(&mut seed);
        }
        // BOTS allocates the children last to first, prepending each.
        let mut children: Vec<Village> = (1..=sim.cities)
            .rev()
            .filter_map(|i| allocate(sim, level - 1, vid * sim.cities + i, pid))
            .collect();
        children.reverse();
        Some(Village {
            id: vid,
            level,
            seed,
            population: inhabitants,
            hosp: Hosp {
                personnel,
                free_personnel: personnel,
                ..Hosp::default()
            },
            outgoing: Vec::new(),
            children,
        })
    }
    allocate(sim, sim.level, 0, &mut 0).expect("level >= 1")
}

/// The statistics of a tree (BOTS' `get_results`).
pub fn get_results(village: &Village) -> Statistics {
    let mut r = Statistics::default();
    for child in &village.children {
        let c = get_results(child);
        r.population += c.population;
        r.hospitals += c.hospitals;
        r.personnel += c.personnel;
        r.checkin += c.checkin;
        r.village += c.village;
        r.waiting += c.waiting;
        r.assess += c.assess;
        r.inside += c.inside;
        r.total_time += c.total_time;
    }
    r.hospitals += 1;
    r.personnel += i64::from(village.hosp.personnel);
    let lists = [
        (&village.population, &mut r.village),
        (&village.hosp.waiting, &mut r.waiting),
        (&village.hosp.assess, &mut r.assess),
        (&village.hosp.inside, &mut r.inside),
    ];
    for (list, count) in lists {
        *count += list.len() as i64;
        r.population += list.len() as i64;
        for p in list {
            r.checkin += i64::from(p.hosps_visited);
            r.total_time += i64::from(p.time);
        }
    }
    r
}

/// Whether a result has BOTS' expected statistics (BOTS' `check_village`
/// compares the eight counts; the average stay, printed to six places, is
/// compared to within 1e-5 here).
pub fn matches_expected(sim: &Simulation, result: &Statistics) -> bool {
    sim.expected
        == Statistics {
            total_time: sim.expected.total_time,
            ..*result
        }
        && (result.avg_stay() - sim.expected_avg_stay).abs() < 1e-5
}

/// The sequential reference (BOTS' `sim_village_main_seq`): `time` steps of
/// the same simulation without tasks.
pub fn sim_main_seq(top: &mut Village, sim: &Simulation) {
    fn step(v: &mut Village, sim: &Simulation) {
        for child in &mut v.children {
            step(child, sim);
        }
        tasks::check_patients_inside(&mut v.hosp, &mut v.population);
        tasks::check_patients_assess(
            &mut v.hosp,
            &mut v.population,
            &mut v.outgoing,
            v.level,
            sim,
        );
        tasks::check_patients_waiting(&mut v.hosp, sim);
        for child in &mut v.children {
            v.hosp.realloc.append(&mut child.outgoing);
        }
        tasks::check_patients_realloc(&mut v.hosp, sim);
        tasks::check_patients_population(&mut v.hosp, &mut v.population, sim);
    }
    for _ in 0..sim.time {
        step(top, sim);
    }
}

/// The task code of health, analysed by `#[task_program]`.
#[prescient::task_program]
pub mod tasks {
    use super::{my_rand, Hosp, Patient, Simulation, Village};
    use prescient::scope;

    /// Checks a patient in (BOTS' `put_in_hosp`): to assessment if staff is
    /// free, else to the waiting list.
    pub fn put_in_hosp(hosp: &mut Hosp, mut patient: Patient, sim: &Simulation) {
        patient.hosps_visited += 1;
        if hosp.free_personnel > 0 {
            hosp.free_personnel -= 1;
            patient.time_left = sim.assess_time;
            patient.time += patient.time_left;
            hosp.assess.push(patient);
        } else {
            hosp.waiting.push(patient);
        }
    }

    /// Convalescent patients count down; those done go home, freeing staff
    /// (BOTS' `check_patients_inside`).
    pub fn check_patients_inside(hosp: &mut Hosp, population: &mut Vec<Patient>) {
        let inside = std::mem::take(&mut hosp.inside);
        for mut p in inside {
            p.time_left -= 1;
            if p.time_left == 0 {
                hosp.free_personnel += 1;
                population.push(p);
            } else {
                hosp.inside.push(p);
            }
        }
    }

    /// Assessed patients count down; when done, each either stays for
    /// convalescence, is sent to the parent's hospital (`outgoing`; never
    /// from the root) or goes home (BOTS' `check_patients_assess_par`).
    pub fn check_patients_assess(
        hosp: &mut Hosp,
        population: &mut Vec<Patient>,
        outgoing: &mut Vec<Patient>,
        level: i32,
        sim: &Simulation,
    ) {
        let assess = std::mem::take(&mut hosp.assess);
        for mut p in assess {
            p.time_left -= 1;
            if p.time_left != 0 {
                hosp.assess.push(p);
            } else if my_rand(&mut p.seed) < sim.convalescence_p {
                if my_rand(&mut p.seed) > sim.realloc_p || level == sim.level {
                    p.time_left = sim.convalescence_time;
                    p.time += p.time_left;
                    hosp.inside.push(p);
                } else {
                    hosp.free_personnel += 1;
                    outgoing.push(p);
                }
            } else {
                hosp.free_personnel += 1;
                population.push(p);
            }
        }
    }

    /// Waiting patients get free staff in list order; the others wait a step
    /// more (BOTS' `check_patients_waiting`).
    pub fn check_patients_waiting(hosp: &mut Hosp, sim: &Simulation) {
        let waiting = std::mem::take(&mut hosp.waiting);
        for mut p in waiting {
            if hosp.free_personnel > 0 {
                hosp.free_personnel -= 1;
                p.time_left = sim.assess_time;
                p.time += p.time_left;
                hosp.assess.push(p);
            } else {
                p.time += 1;
                hosp.waiting.push(p);
            }
        }
    }

    /// Admits the patients the children sent up, lowest id first (BOTS'
    /// `check_patients_realloc`, which picks the minimum repeatedly).
    pub fn check_patients_realloc(hosp: &mut Hosp, sim: &Simulation) {
        let mut realloc = std::mem::take(&mut hosp.realloc);
        realloc.sort_unstable_by_key(|p| p.id);
        for p in realloc.drain(..) {
            put_in_hosp(hosp, p, sim);
        }
        hosp.realloc = realloc; // keep the buffer
    }

    /// Each inhabitant falls sick with probability `get_sick_p` and checks in
    /// (BOTS' `check_patients_population`).
    pub fn check_patients_population(
        hosp: &mut Hosp,
        population: &mut Vec<Patient>,
        sim: &Simulation,
    ) {
        let people = std::mem::take(population);
        for mut p in people {
            if my_rand(&mut p.seed) < sim.get_sick_p {
                put_in_hosp(hosp, p, sim);
            } else {
                population.push(p);
            }
        }
    }

    /// One time step of `village` and its subtree (BOTS' `sim_village_par`):
    /// a task per child village while the village updates its hospital, then
    /// the children's sent-up patients are admitted and the inhabitants may
    /// fall sick.
    pub fn sim_village(village: &mut Village, sim: &Simulation) {
        let level = village.level;
        let hosp = &mut village.hosp;
        let population = &mut village.population;
        let outgoing = &mut village.outgoing;
        let children = &mut village.children;
        scope(|s| {
            for child in children.iter_mut() {
                s.spawn(move |_| sim_village(child, sim));
            }
            check_patients_inside(hosp, population);
            check_patients_assess(hosp, population, outgoing, level, sim);
            check_patients_waiting(hosp, sim);
        });
        for child in children.iter_mut() {
            hosp.realloc.append(&mut child.outgoing);
        }
        check_patients_realloc(hosp, sim);
        check_patients_population(hosp, population, sim);
    }

    /// Runs the simulation's `time` steps on the tree `top` (BOTS'
    /// `sim_village_main_par`).
    ///
    /// Works from any thread: inside a runtime built from [`PARAMS`] (what
    /// the tests and the suite measure) or on the global runtime.
    pub fn sim_main(top: &mut Village, sim: &Simulation) {
        for _ in 0..sim.time {
            sim_village(top, sim);
        }
    }
}
