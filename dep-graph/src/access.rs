//! Access modes of a dataflow task on a region (`in`, `out`, `inout`), and how
//! two accesses of one task to the same region combine.

/// How a task accesses a data region, as in an OpenMP `depend` clause.
///
/// For ordering purposes [`AccessMode::Out`] and [`AccessMode::InOut`] behave
/// the same (both are writes: they conflict with every other access); the
/// distinction matters to the runtime, which documents whether an `out` body
/// may read the previous value.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum AccessMode {
    /// Read-only access: the task receives `&T`. Readers of the same version
    /// of a region may run concurrently.
    In,
    /// Write access: the task receives `&mut T`.
    Out,
    /// Read-write access: the task receives `&mut T`.
    InOut,
}

impl AccessMode {
    /// Whether this access writes the region, i.e. conflicts with every other
    /// access to it (`Out` and `InOut`).
    pub const fn is_write(self) -> bool {
        matches!(self, AccessMode::Out | AccessMode::InOut)
    }

    /// Whether this access reads the region's previous value (`In` and
    /// `InOut`).
    pub const fn is_read(self) -> bool {
        matches!(self, AccessMode::In | AccessMode::InOut)
    }

    /// The mode a task gets when it names one region twice, with modes `a` and
    /// `b`: the weakest mode that allows both accesses.
    ///
    /// `In` + `In` = `In`, `Out` + `Out` = `Out`, and any other combination
    /// (a read together with a write, or anything with `InOut`) is `InOut`.
    /// The graph merges duplicates this way so that a task never holds two
    /// accesses to one region — which in the runtime would mean two borrows of
    /// one value, one of them `&mut`.
    pub const fn strongest(a: AccessMode, b: AccessMode) -> AccessMode {
        match (a, b) {
            (AccessMode::In, AccessMode::In) => AccessMode::In,
            (AccessMode::Out, AccessMode::Out) => AccessMode::Out,
            _ => AccessMode::InOut,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::AccessMode::{self, In, InOut, Out};

    const ALL: [AccessMode; 3] = [In, Out, InOut];

    #[test]
    fn is_write_and_is_read() {
        assert!(!In.is_write());
        assert!(Out.is_write());
        assert!(InOut.is_write());
        assert!(In.is_read());
        assert!(!Out.is_read());
        assert!(InOut.is_read());
    }

    #[test]
    fn strongest_table() {
        assert_eq!(AccessMode::strongest(In, In), In);
        assert_eq!(AccessMode::strongest(Out, Out), Out);
        assert_eq!(AccessMode::strongest(InOut, InOut), InOut);
        assert_eq!(AccessMode::strongest(In, Out), InOut);
        assert_eq!(AccessMode::strongest(In, InOut), InOut);
        assert_eq!(AccessMode::strongest(Out, InOut), InOut);
    }

    #[test]
    fn strongest_is_commutative_idempotent_and_allows_both() {
        for a in ALL {
            assert_eq!(AccessMode::strongest(a, a), a);
            for b in ALL {
                let s = AccessMode::strongest(a, b);
                assert_eq!(s, AccessMode::strongest(b, a));
                // The merged mode permits everything either access needed.
                assert!(s.is_write() || !(a.is_write() || b.is_write()));
                assert!(s.is_read() || !(a.is_read() || b.is_read()));
            }
        }
    }
}
