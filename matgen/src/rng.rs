//! Platform-independent randomness: SplitMix64, bounded integers, unit
//! reals, coordinate hashes, an octave sampler for power-law integers, and
//! `ln`/`exp`/`pow` built from IEEE-754 basic operations only.
//!
//! # Why not `rand`
//!
//! Generated matrices must be bit-identical for a seed on every platform and
//! across releases of this crate's dependencies. `rand` documents that its
//! distributions' algorithms (and so their outputs) may change between
//! versions, and `f64::ln`, `f64::exp` and `f64::powf` call the platform's
//! libm, whose last-bit rounding differs between platforms; one ulp is enough
//! to move a `floor` across an integer. SplitMix64 (Steele, Lea and Flood,
//! "Fast splittable pseudorandom number generators", OOPSLA 2014) is ten lines
//! and fully specified, and the functions below use only `+ - * /`, `sqrt`,
//! `floor`/`round` and bit manipulation, which IEEE 754 defines exactly
//! (Rust never contracts `a * b + c` into a fused multiply-add on its own).

/// The golden-ratio increment of SplitMix64.
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's output function (a variant of MurmurHash3's finalizer): a
/// bijection of `u64` that mixes every input bit into every output bit.
pub fn mix(z: u64) -> u64 {
    let z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A hash of a pair of coordinates under a seed: the same on every platform.
pub fn hash2(seed: u64, a: u64, b: u64) -> u64 {
    mix(mix(seed ^ a.wrapping_mul(GAMMA)).wrapping_add(b) ^ 0x2545_F491_4F6C_DD1D)
}

/// A uniform real in `[0, 1)` from the top 53 bits of a hash.
pub fn unit_of(h: u64) -> f64 {
    (h >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// The SplitMix64 generator.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator for `seed` and a named purpose (`stream`), so that the
    /// separate random decisions of one generator never share a sequence.
    pub fn new(seed: u64, stream: u64) -> Self {
        SplitMix64 {
            state: mix(seed ^ mix(stream.wrapping_add(GAMMA))),
        }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GAMMA);
        mix(self.state)
    }

    /// A uniform integer in `[0, n)` (`n > 0`) by Lemire's multiply-shift;
    /// the bias is at most `n / 2^64`, immaterial for the extents used here.
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A uniform integer in `[lo, hi]`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        debug_assert!(lo <= hi);
        lo + self.below((hi - lo) as u64 + 1) as i64
    }

    /// A uniform real in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        unit_of(self.next_u64())
    }

    /// Shuffles `items` in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }
}

/// Samples integers in `[1, hi]` with a density close to `x^-a`: the range is
/// split into octaves `[2^k, 2^(k+1))`, an octave is chosen with the exact
/// integral of `x^-a` over it, and the integer is uniform inside the octave.
/// `a = 0` is the uniform distribution, `a = 1` log-uniform (Zipf-like).
#[derive(Clone, Debug)]
pub struct OctaveSampler {
    /// Per octave: its first integer, its last, and the cumulative weight.
    octaves: Vec<(u64, u64, f64)>,
}

impl OctaveSampler {
    /// A sampler over `[1, hi]` (`hi >= 1`) with exponent `a >= 0`.
    pub fn new(hi: u64, a: f64) -> Self {
        assert!(hi >= 1, "an empty range");
        let mut octaves = Vec::new();
        let mut total = 0.0;
        let mut lo = 1u64;
        while lo <= hi {
            let last = lo.saturating_mul(2).saturating_sub(1).min(hi);
            let (x0, x1) = (lo as f64, last as f64 + 1.0);
            let w = if a == 0.0 {
                x1 - x0
            } else if a == 1.0 {
                ln(x1) - ln(x0)
            } else {
                (pow(x1, 1.0 - a) - pow(x0, 1.0 - a)) / (1.0 - a)
            };
            total += w;
            octaves.push((lo, last, total));
            if last == hi {
                break;
            }
            lo = last + 1;
        }
        for o in &mut octaves {
            o.2 /= total;
        }
        OctaveSampler { octaves }
    }

    /// One sample.
    pub fn sample(&self, rng: &mut SplitMix64) -> u64 {
        let u = rng.unit();
        let k = self
            .octaves
            .iter()
            .position(|o| u < o.2)
            .unwrap_or(self.octaves.len() - 1);
        let (lo, hi, _) = self.octaves[k];
        lo + rng.below(hi - lo + 1)
    }
}

const LN_2: f64 = std::f64::consts::LN_2;
/// ln 2 split for exact argument reduction (Cody–Waite, fdlibm's constants):
/// `LN2_HI` has trailing zero bits, so `k * LN2_HI` is exact for |k| < 2^20.
const LN2_HI: f64 = f64::from_bits(0x3FE6_2E42_FEE0_0000);
const LN2_LO: f64 = f64::from_bits(0x3DEA_39EF_3579_3C76);

/// The natural logarithm of a positive, finite `x`, from basic operations
/// only (see the module documentation); accurate to a few ulps.
pub fn ln(x: f64) -> f64 {
    assert!(x > 0.0 && x.is_finite(), "ln of {x}");
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i64;
    if biased == 0 {
        // Subnormal: scale into the normal range first.
        return ln(x * (1u64 << 54) as f64) - 54.0 * LN_2;
    }
    let mut e = biased - 1023;
    let mut m = f64::from_bits((bits & ((1u64 << 52) - 1)) | (1023u64 << 52));
    if m > std::f64::consts::SQRT_2 {
        m /= 2.0;
        e += 1;
    }
    // ln(m) = 2 atanh(z), z = (m - 1) / (m + 1), |z| <= 0.1716.
    let z = (m - 1.0) / (m + 1.0);
    let z2 = z * z;
    let mut sum = 0.0;
    for k in (0..16).rev() {
        sum = sum * z2 + 1.0 / (2 * k + 1) as f64;
    }
    e as f64 * LN2_HI + (e as f64 * LN2_LO + 2.0 * z * sum)
}

/// `e^x` from basic operations only; 0 below -745, infinity above 709.8.
pub fn exp(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x < -745.0 {
        return 0.0;
    }
    if x > 709.78 {
        return f64::INFINITY;
    }
    let k = (x / LN_2).round();
    let r = (x - k * LN2_HI) - k * LN2_LO;
    let mut sum = 0.0;
    for n in (1..=22).rev() {
        sum = 1.0 + sum * r / n as f64;
    }
    let k = k as i64;
    // Multiply by 2^k in two steps so that neither factor leaves the range.
    let half = k / 2;
    sum * pow2(half) * pow2(k - half)
}

fn pow2(k: i64) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// `x^y` for positive `x`, as `exp(y ln x)`.
pub fn pow(x: f64, y: f64) -> f64 {
    exp(y * ln(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_matches_the_reference_sequence() {
        // The reference implementation with state 0 yields these first.
        let mut r = SplitMix64 { state: 0 };
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(r.next_u64(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn ln_and_exp_agree_with_the_platform_closely() {
        for &x in &[
            1e-300, 1e-10, 0.1, 0.5, 0.999, 1.0, 1.5, 2.0, 3.0, 1e5, 1e300,
        ] {
            let got = ln(x);
            let want = x.ln();
            assert!(
                (got - want).abs() <= 4.0 * f64::EPSILON * want.abs().max(1.0),
                "ln {x}"
            );
        }
        for &x in &[-700.0, -10.0, -1.0, -1e-9, 0.0, 0.3, 1.0, 10.0, 700.0] {
            let got = exp(x);
            let want = x.exp();
            assert!((got - want).abs() <= 8.0 * f64::EPSILON * want, "exp {x}");
        }
        assert!((pow(2.0, 0.5) - std::f64::consts::SQRT_2).abs() < 1e-15);
    }

    #[test]
    fn below_and_range_stay_in_bounds() {
        let mut r = SplitMix64::new(7, 1);
        for n in 1..100u64 {
            assert!(r.below(n) < n);
            let v = r.range(-3, n as i64);
            assert!((-3..=n as i64).contains(&v));
        }
    }

    #[test]
    fn octave_sampler_covers_its_range_and_skews() {
        let s = OctaveSampler::new(1000, 1.0);
        let mut r = SplitMix64::new(1, 2);
        let mut small = 0;
        for _ in 0..10_000 {
            let x = s.sample(&mut r);
            assert!((1..=1000).contains(&x));
            if x < 10 {
                small += 1;
            }
        }
        // log-uniform: P(x < 10) = ln 10 / ln 1001, about a third.
        assert!((2500..4200).contains(&small), "{small}");
        let u = OctaveSampler::new(1, 0.0);
        assert_eq!(u.sample(&mut r), 1);
    }
}
