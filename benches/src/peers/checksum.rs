//! The checksum a peer prints of its result, computed here from the Rust
//! programs' results: FNV-1a over 64 bits of the result's values as
//! little-endian bytes, in order (the twin of `Fnv1a` in
//! `benches/peers/peer.hpp`). Equal checksums say that the C++ program
//! computed what the Rust reference computes, bit for bit.

use crate::annotated::health::{Patient, Village};
use crate::dataflow::sparselu::Matrix;

/// An FNV-1a (64-bit) hash being fed.
#[derive(Clone, Copy, Debug)]
pub struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Fnv1a {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv1a {
    /// Feeds `bytes`.
    pub fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    /// Feeds a `u64`.
    pub fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }

    /// Feeds an `i32`.
    pub fn i32(&mut self, v: i32) {
        self.bytes(&v.to_le_bytes());
    }

    /// The hash as the peers print it: 16 lowercase hex digits.
    pub fn hex(&self) -> String {
        format!("{:016x}", self.0)
    }
}

/// A value a checksum feeds as little-endian bytes (a float as its bits).
pub trait Le: Copy {
    /// Feeds the value to `h`.
    fn feed(self, h: &mut Fnv1a);
}

macro_rules! le {
    ($($t:ty),*) => {$(
        impl Le for $t {
            fn feed(self, h: &mut Fnv1a) {
                h.bytes(&self.to_le_bytes());
            }
        }
    )*};
}
le!(u8, u32, i32, u64, i64);

impl Le for f32 {
    fn feed(self, h: &mut Fnv1a) {
        self.to_bits().feed(h);
    }
}

impl Le for f64 {
    fn feed(self, h: &mut Fnv1a) {
        self.to_bits().feed(h);
    }
}

/// The checksum of `values` in order (of a scalar result: `of(&[x])`).
pub fn of<T: Le>(values: &[T]) -> String {
    let mut h = Fnv1a::default();
    values.iter().for_each(|v| v.feed(&mut h));
    h.hex()
}

/// The checksum of complex values: each one's real then imaginary part.
pub fn of_complex(values: &[crate::annotated::fft::Complex]) -> String {
    let mut h = Fnv1a::default();
    for v in values {
        v.re.feed(&mut h);
        v.im.feed(&mut h);
    }
    h.hex()
}

/// The checksum of a SparseLU factorisation: its blocks' `f32` bits, then
/// the presence map, one byte (0 or 1) per block.
pub fn of_sparselu(m: &Matrix) -> String {
    let mut h = Fnv1a::default();
    m.blocks.iter().for_each(|v| v.feed(&mut h));
    m.present.iter().for_each(|&p| u8::from(p).feed(&mut h));
    h.hex()
}

/// The checksum of a health village tree: each village before its children,
/// as id, level, seed, then each patient list (population, then the
/// hospital's staff and free staff, waiting, assess, inside and realloc
/// lists, then outgoing) as its length (`u64`) and its patients (five `i32`
/// each), then its number of children (`u64`).
pub fn of_village(v: &Village) -> String {
    let mut h = Fnv1a::default();
    hash_village(&mut h, v);
    h.hex()
}

fn hash_village(h: &mut Fnv1a, v: &Village) {
    fn list(h: &mut Fnv1a, patients: &[Patient]) {
        h.u64(patients.len() as u64);
        for p in patients {
            for field in [p.id, p.seed, p.time, p.time_left, p.hosps_visited] {
                h.i32(field);
            }
        }
    }
    h.i32(v.id);
    h.i32(v.level);
    h.i32(v.seed);
    list(h, &v.population);
    h.i32(v.hosp.personnel);
    h.i32(v.hosp.free_personnel);
    list(h, &v.hosp.waiting);
    list(h, &v.hosp.assess);
    list(h, &v.hosp.inside);
    list(h, &v.hosp.realloc);
    list(h, &v.outgoing);
    h.u64(v.children.len() as u64);
    for child in &v.children {
        hash_village(h, child);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_known_values() {
        // FNV-1a 64 of "" and "a" (the published test vectors).
        assert_eq!(Fnv1a::default().hex(), "cbf29ce484222325");
        let mut h = Fnv1a::default();
        h.bytes(b"a");
        assert_eq!(h.hex(), "af63dc4c8601ec8c");
        assert_ne!(of(&[1u64]), of(&[2u64]));
        assert_eq!(of(&[1.5f64]), of(&[1.5f64.to_bits()]));
        assert_eq!(of(&[-1i32]), of(&[u32::MAX]));
    }
}
