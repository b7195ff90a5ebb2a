// A handle cannot leave the dataflow scope that created it: not as the
// scope's result, nor through a variable outside the scope (handles are
// `!Send`, and their `'df` brand is the scope's own).
fn main() {
    let handle = prescient::dataflow(|df| df.data(1u32));
    drop(handle);
}
