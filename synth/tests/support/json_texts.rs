//! The decimal texts of reals that the JSON differential tests read
//! (`synth/tests/json_numbers.rs` for spf's reader, `tests/cli_json_numbers.rs`
//! for the reader of the programs `spf build` writes): random doubles in
//! several spellings, the exact midpoints between neighbouring doubles and
//! the texts just above and below them, the boundaries of the normal and
//! subnormal ranges, and digit strings of hundreds of digits. The reference
//! every reader is compared with is `str::parse::<f64>`, which rounds
//! correctly.

#![allow(dead_code)]

/// A small deterministic generator (xorshift64*), so that a failure
/// reproduces.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A draw from `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// A value: mostly ordinary, often one a reader gets wrong (the least
    /// subnormal, random subnormals, ±0.0, values near the top of the
    /// double range, the least normal).
    pub fn value(&mut self) -> f64 {
        match self.below(10) {
            0 => 5e-324,
            1 => f64::from_bits(1 + self.below(1 << 52)),
            2 => -f64::from_bits(1 + self.below(1 << 52)),
            3 => 0.0,
            4 => -0.0,
            5 => f64::MAX / (1 + self.below(8)) as f64,
            6 => f64::MIN_POSITIVE,
            _ => {
                let x = f64::from_bits(self.next() >> 2);
                if x.is_finite() {
                    x
                } else {
                    1.5
                }
            }
        }
    }

    /// A finite double with uniformly random bits: every exponent equally
    /// likely, so about one in 2,000 is subnormal.
    pub fn double(&mut self) -> f64 {
        loop {
            let x = f64::from_bits(self.next());
            if x.is_finite() {
                return x;
            }
        }
    }
}

/// A nonnegative decimal, exactly: `digits` (most significant first) times
/// `10^exp`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decimal {
    pub digits: Vec<u8>,
    pub exp: i32,
}

impl Decimal {
    /// The same value with `k` more digits (zeros) and an exponent `k` lower.
    fn widened(&self, k: usize) -> Decimal {
        let mut digits = self.digits.clone();
        digits.extend(std::iter::repeat_n(0, k));
        Decimal {
            digits,
            exp: self.exp - k as i32,
        }
    }

    /// The value plus (`sign` 1) or minus (`sign` -1) one unit of the
    /// fifth decimal place below its last digit: just above or just below it,
    /// closer than any double's neighbour.
    pub fn nudged(&self, sign: i32) -> Decimal {
        let mut d = self.widened(5);
        if sign > 0 {
            let last = d.digits.len() - 1;
            d.digits[last] = 1;
        } else {
            // Subtract one from the last place, borrowing.
            for digit in d.digits.iter_mut().rev() {
                if *digit == 0 {
                    *digit = 9;
                } else {
                    *digit -= 1;
                    break;
                }
            }
        }
        d
    }
}

impl std::fmt::Display for Decimal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text: String = self.digits.iter().map(|d| char::from(b'0' + d)).collect();
        let text = text.trim_start_matches('0');
        write!(
            f,
            "{}e{}",
            if text.is_empty() { "0" } else { text },
            self.exp
        )
    }
}

/// The exact decimal value of a nonnegative finite double (its expansion
/// ends within 767 significant digits; Rust prints digits exactly to any
/// precision).
pub fn exact_decimal(x: f64) -> Decimal {
    let text = format!("{x:.780e}");
    let (mantissa, exp) = text.split_once('e').unwrap();
    let digits: Vec<u8> = mantissa
        .bytes()
        .filter(u8::is_ascii_digit)
        .map(|b| b - b'0')
        .collect();
    let exp: i32 = exp.parse().unwrap();
    Decimal {
        exp: exp - (digits.len() as i32 - 1),
        digits,
    }
}

/// `(a + b) / 2`, exactly.
pub fn midpoint(a: &Decimal, b: &Decimal) -> Decimal {
    let exp = a.exp.min(b.exp);
    let (a, b) = (
        a.widened((a.exp - exp) as usize),
        b.widened((b.exp - exp) as usize),
    );
    let len = a.digits.len().max(b.digits.len()) + 1;
    let pad = |d: &Decimal| {
        let mut v = vec![0u8; len - d.digits.len()];
        v.extend(&d.digits);
        v
    };
    let (x, y) = (pad(&a), pad(&b));
    let mut sum = vec![0u8; len];
    let mut carry = 0;
    for k in (0..len).rev() {
        let s = x[k] + y[k] + carry;
        sum[k] = s % 10;
        carry = s / 10;
    }
    // Halve: with one more digit first when the sum is odd.
    let mut exp = exp;
    if sum[len - 1] % 2 == 1 {
        sum.push(0);
        exp -= 1;
    }
    let mut rest = 0;
    for digit in sum.iter_mut() {
        let v = rest * 10 + *digit;
        *digit = v / 2;
        rest = v % 2;
    }
    Decimal { digits: sum, exp }
}

/// Reals that stress a parser, by hand: the reproducers of misread
/// numbers, range boundaries, ties and long digit strings.
pub const HARD: &[&str] = &[
    "0.43494755222514203",
    "2.2250738585072011e-308",
    "2.2250738585072014e-308",
    "2.2250738585072012e-308",
    "2.4703282292062328e-324",
    "2.4703282292062327e-324",
    "4.9406564584124654e-324",
    "5e-324",
    "1e-324",
    "3e-324",
    "7.4109846876186981e-324",
    "1.7976931348623157e308",
    "1.7976931348623158e308",
    "2.2250738585072009e-308",
    "4.4501477170144023e-308",
    "9007199254740993.0",
    "9007199254740993.00000000000000000000000000000000000000000000000000001",
    "0.1",
    "0.30000000000000004",
    "-0.0",
    "0.0",
    "0e0",
    "-0e-400",
    "1e-400",
    "123456789012345678901234567890e-20",
    "1.00000000000000011102230246251565404236316680908203125",
    "1.00000000000000011102230246251565404236316680908203124",
    "1.00000000000000011102230246251565404236316680908203126",
    "8.98846567431158e307",
    "1E+2",
    "-1.5E-3",
];

/// Every text of the differential tests, `random` of them random doubles
/// (each in four spellings) and as many exact midpoints (each with the
/// texts just above and below); all read as finite doubles.
pub fn texts(random: usize) -> Vec<String> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut out: Vec<String> = HARD.iter().map(|s| s.to_string()).collect();
    out.push(format!("0.1{}1", "0".repeat(700)));
    out.push(format!("1{}e-800", "0".repeat(790)));
    for _ in 0..random {
        let x = rng.double();
        out.push(format!("{x:?}"));
        out.push(format!("{x:e}"));
        out.push(format!("{x:.17e}"));
        out.push(format!("{x:.30e}"));
    }
    // Random subnormals, and numbers at the two ends of the normal range.
    for _ in 0..random / 4 {
        let sub = f64::from_bits(rng.next() % (1 << 52));
        let small = f64::from_bits((1 << 52) + rng.next() % (1 << 52));
        let large = f64::from_bits(0x7FE0_0000_0000_0000 + rng.next() % (1 << 52));
        for x in [sub, small, large] {
            out.push(format!("{x:e}"));
        }
    }
    // The midpoint between a double and the next one, exactly, and the
    // texts just above and just below it.
    let mut bits: Vec<u64> = (0..random).map(|_| rng.double().abs().to_bits()).collect();
    bits.extend([0, 1, 2, 3, (1 << 52) - 1, 1 << 52, (1 << 52) + 1]);
    for b in bits {
        let (x, next) = (f64::from_bits(b), f64::from_bits(b + 1));
        if !next.is_finite() {
            continue;
        }
        let mid = midpoint(&exact_decimal(x), &exact_decimal(next));
        out.push(mid.nudged(1).to_string());
        out.push(mid.nudged(-1).to_string());
        out.push(mid.to_string());
    }
    out.retain(|t| t.parse::<f64>().is_ok_and(f64::is_finite));
    out
}

/// A COO instance with one entry per text, in rows `0..n` of one column,
/// so that every conversion keeps the values in this order.
pub fn instance_text(values: &[String]) -> String {
    let n = values.len();
    let rows: Vec<String> = (0..n).map(|k| k.to_string()).collect();
    format!(
        "{{\"format\": \"COO\", \"symbols\": {{\"NR\": {n}, \"NC\": 1, \"NNZ\": {n}}}, \
         \"arrays\": {{\"row\": [{}], \"col\": [{}], \"A\": [{}]}}}}",
        rows.join(","),
        vec!["0"; n].join(","),
        values.join(",")
    )
}
