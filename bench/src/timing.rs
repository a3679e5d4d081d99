//! The timing protocol shared by every in-process baseline, the same as the
//! one `spf build`'s driver applies to the generated code: each of N runs is
//! timed whole (allocation of the outputs and temporaries included, input
//! preparation and freeing of the outputs excluded), and the median is
//! reported. The first run's output is verified before the other runs are
//! made: a wrong baseline gets no time.

/// The times of N runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    /// Seconds of each run, in the order they ran.
    pub runs: Vec<f64>,
}

impl Timing {
    /// The median (the mean of the two middle runs for an even count, as
    /// the driver of `spf build` computes it).
    ///
    /// # Panics
    ///
    /// When there is no run.
    pub fn median(&self) -> f64 {
        assert!(!self.runs.is_empty(), "no run");
        let mut t = self.runs.clone();
        t.sort_by(f64::total_cmp);
        let n = t.len();
        if n % 2 == 1 {
            t[n / 2]
        } else {
            (t[n / 2 - 1] + t[n / 2]) / 2.0
        }
    }

    /// The fastest run.
    pub fn min(&self) -> f64 {
        self.runs.iter().copied().fold(f64::INFINITY, f64::min)
    }

    /// The slowest run.
    pub fn max(&self) -> f64 {
        self.runs.iter().copied().fold(0.0, f64::max)
    }
}

/// What a report keeps of a [`Timing`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// The number of runs.
    pub runs: usize,
    /// Their median, in seconds.
    pub median: f64,
    /// The fastest.
    pub min: f64,
    /// The slowest.
    pub max: f64,
}

impl From<&Timing> for Summary {
    fn from(t: &Timing) -> Summary {
        Summary {
            runs: t.runs.len(),
            median: t.median(),
            min: t.min(),
            max: t.max(),
        }
    }
}

/// Runs `run` `repeat` times (at least once). Each call returns its own
/// time and its output; the first output goes to `verify`, and when that
/// fails nothing more runs. Outputs are dropped after their call returned,
/// outside the time.
pub fn measure<T>(
    repeat: usize,
    mut run: impl FnMut() -> Result<(f64, T), String>,
    verify: impl FnOnce(T) -> Result<(), String>,
) -> Result<Timing, String> {
    let (first, output) = run()?;
    verify(output)?;
    let mut runs = vec![first];
    for _ in 1..repeat.max(1) {
        let (t, output) = run()?;
        drop(output);
        runs.push(t);
    }
    Ok(Timing { runs })
}

/// Puts this process's allocator in the regime of the generated converter
/// programs (`engine/c/driver_main.c`): glibc never maps a block of its own
/// nor trims the heap, so repeated runs reuse memory instead of faulting in
/// fresh pages. The in-process baselines (the C, sprs, nalgebra-sparse)
/// and the converters are then timed under the same allocator policy; with
/// glibc's defaults a block above its mmap threshold (32 MiB at most) is
/// mapped afresh for every run. Does nothing on other C libraries.
pub fn steady_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::os::raw::c_int;
        extern "C" {
            fn mallopt(param: c_int, value: c_int) -> c_int;
        }
        const M_TRIM_THRESHOLD: c_int = -1;
        const M_MMAP_MAX: c_int = -4;
        // SAFETY: mallopt only changes glibc's allocation policy; it is
        // called before this process allocates anything large.
        unsafe {
            mallopt(M_MMAP_MAX, 0);
            mallopt(M_TRIM_THRESHOLD, c_int::MAX);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        let t = Timing {
            runs: vec![3.0, 1.0, 2.0],
        };
        assert_eq!(t.median(), 2.0);
        assert_eq!(t.min(), 1.0);
        assert_eq!(t.max(), 3.0);
        let t = Timing {
            runs: vec![4.0, 1.0, 3.0, 2.0],
        };
        assert_eq!(t.median(), 2.5);
    }

    #[test]
    fn a_wrong_output_stops_the_runs() {
        let mut calls = 0;
        let r = measure(
            5,
            || {
                calls += 1;
                Ok((1.0, 7))
            },
            |x| if x == 7 { Err("wrong".into()) } else { Ok(()) },
        );
        assert_eq!(r, Err("wrong".to_string()));
        assert_eq!(calls, 1);
    }
}
