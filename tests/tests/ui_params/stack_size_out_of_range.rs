use prescient::Params;

// A power of two, but below the 16 KiB minimum.
const SMALL: Params = Params::DEFAULT.with_stack_size(8 * 1024).checked();
// A power of two, but above the 1 GiB maximum.
const LARGE: Params = Params::DEFAULT.with_stack_size(2 * 1024 * 1024 * 1024).checked();

fn main() {
    let _ = (SMALL, LARGE);
}
