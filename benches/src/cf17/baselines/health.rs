//! health under rayon: [`crate::annotated::health`]'s time step with
//! `prescient::scope` replaced by `rayon::scope`: one spawn per child village
//! while the village updates its own hospital in the scope's body, then the
//! children's sent-up patients are admitted; the program's own kernels.

use crate::annotated::health::tasks::{
    check_patients_assess, check_patients_inside, check_patients_population,
    check_patients_realloc, check_patients_waiting,
};
use crate::annotated::health::{Simulation, Village};

/// One time step of `village` and its subtree, one `rayon::scope` spawn per
/// child village (the task version's
/// [`sim_village`](crate::annotated::health::sim_village)).
pub fn sim_village_rayon(village: &mut Village, sim: &Simulation) {
    let level = village.level;
    let hosp = &mut village.hosp;
    let population = &mut village.population;
    let outgoing = &mut village.outgoing;
    let children = &mut village.children;
    rayon::scope(|s| {
        for child in children.iter_mut() {
            s.spawn(move |_| sim_village_rayon(child, sim));
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

/// Runs the simulation's `time` steps on the tree `top` under rayon.
pub fn sim_main_rayon(top: &mut Village, sim: &Simulation) {
    for _ in 0..sim.time {
        sim_village_rayon(top, sim);
    }
}
