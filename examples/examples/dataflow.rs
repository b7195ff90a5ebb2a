//! Dataflow tasks: tasks declare `in`/`out`/`inout` accesses on handles and
//! run in dependency order, with safe borrows (`&T` for `in`, `&mut T` for
//! `out`/`inout`). Here: a prefix-sum pipeline over the tiles of one vector,
//! OpenMP's `depend(inout: A[i*bs])` written with `Dataflow::tiles`.
//!
//! Run: `cargo run --release -p prescient-examples --example dataflow`
//!
//! What to look at: the sums are the prefix sums of 1..=32 (checked against
//! a sequential scan), though the tiles' tasks ran in parallel, ordered only
//! by the accesses they declared.

fn main() {
    const TILES: usize = 8;
    const TILE_LEN: usize = 4;
    let mut values: Vec<u64> = (1..=(TILES * TILE_LEN) as u64).collect();
    let expected: Vec<u64> = values
        .iter()
        .scan(0, |sum, v| {
            *sum += v;
            Some(*sum)
        })
        .collect();

    prescient::dataflow(|df| {
        let tiles = df.tiles(&mut values, TILE_LEN);
        // Step 1: each tile computes its local prefix sums (independent tasks).
        for i in 0..TILES {
            df.task(tiles.inout(i), |tile: &mut [u64]| {
                for k in 1..tile.len() {
                    tile[k] += tile[k - 1];
                }
            });
        }
        // Step 2: carry each tile's total into the next tile, in order: the
        // task for tile i reads tile i - 1 (after its own carry) and writes
        // tile i, so the graph chains them.
        for i in 1..TILES {
            df.task(
                (tiles.read(i - 1), tiles.inout(i)),
                |(previous, tile): (&[u64], &mut [u64])| {
                    let carry = previous[previous.len() - 1];
                    tile.iter_mut().for_each(|v| *v += carry);
                },
            );
        }
    });

    assert_eq!(values, expected);
    println!(
        "prefix sums of 1..={}: {:?}",
        TILES * TILE_LEN,
        &values[..8]
    );
    println!("last = {}", values[values.len() - 1]);
    println!(
        "What to look at: these are the sequential prefix sums (checked), computed by tasks \
         ordered only by the accesses they declared."
    );
}
