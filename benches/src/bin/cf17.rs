//! The CF'17 suite binary. `--sweep`: the parameter sweep
//! (`prescient_benches::cf17::sweep`).

use prescient_benches::cf17::{sweep, Size};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match args.first().map(String::as_str) {
        Some("--sweep") => sweep::main(args[1..].to_vec()),
        Some("--calibrate") => {
            let dir = args.get(1).map_or_else(
                || std::path::PathBuf::from(sweep::STORED),
                std::path::PathBuf::from,
            );
            match sweep::read_dir(&dir) {
                Ok(sweeps) => {
                    print!("{}", prescient_benches::cf17::calibrate::report(&sweeps));
                    0
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    1
                }
            }
        }
        Some("--sweep-child") => match &args[1..] {
            [program, threads, reps, size] => {
                match (threads.parse(), reps.parse(), Size::parse(size)) {
                    (Ok(threads), Ok(reps), Some(size)) => {
                        sweep::child_main(program, threads, reps, size)
                    }
                    _ => 2,
                }
            }
            _ => 2,
        },
        _ => {
            eprintln!("usage: cf17 --sweep …");
            2
        }
    };
    std::process::exit(code);
}
