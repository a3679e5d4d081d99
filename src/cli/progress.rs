//! Progress of `spf convert`'s steps on standard error: a spinner
//! (indicatif) for each step that takes over a second, and then a line
//! with its time, shown only when standard error is a terminal (nothing is
//! written otherwise, so scripts and tests see only spf's messages). With
//! `--verbose`, every step's time is printed, terminal or not, and so are
//! the engine's details (which engine ran, which library was used).
//! [`Progress`] is the command's [`Observer`] of the engine.

use std::io::IsTerminal;
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use engine::observe::{self, Observer};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a step runs before its spinner appears.
const SHOW_AFTER: Duration = Duration::from_secs(1);

/// Whether steps show progress.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    shown: bool,
    timed: bool,
    verbose: bool,
}

impl Progress {
    /// Progress on standard error when it is a terminal; with `verbose`,
    /// each step's time and the engine's details on standard error in any
    /// case.
    pub fn on_terminal(verbose: bool) -> Progress {
        let shown = std::io::stderr().is_terminal();
        Progress {
            shown,
            timed: verbose && !shown,
            verbose,
        }
    }

    /// The step `label` (`reading m.mtx`) from now until the returned
    /// guard is dropped: after a second without an answer a spinner shows
    /// the label and the time so far, replaced by `spf: label (N.N s)`
    /// when the step ends.
    pub fn start(&self, label: &str) -> Step {
        if !self.shown {
            return Step {
                spinner: None,
                timed: self.timed.then(|| (label.to_string(), Instant::now())),
            };
        }
        let (done, finished) = channel::<()>();
        let label = label.to_string();
        let started = Instant::now();
        let thread = std::thread::spawn(move || {
            if finished.recv_timeout(SHOW_AFTER) != Err(RecvTimeoutError::Timeout) {
                return;
            }
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
                .with_elapsed(started.elapsed());
            if let Ok(style) = ProgressStyle::with_template("{spinner} spf: {msg} ({elapsed})") {
                bar.set_style(style);
            }
            bar.set_message(label.clone());
            bar.enable_steady_tick(Duration::from_millis(100));
            let _ = finished.recv();
            bar.finish_and_clear();
            eprintln!("spf: {label} ({:.1} s)", started.elapsed().as_secs_f64());
        });
        Step {
            spinner: Some((done, thread)),
            timed: None,
        }
    }
}

/// A step in progress: its spinner ends when the guard is dropped.
pub struct Step {
    /// The channel whose closing ends the spinner, and its thread.
    spinner: Option<(Sender<()>, JoinHandle<()>)>,
    /// The label and start of a step whose time is printed at its end.
    timed: Option<(String, Instant)>,
}

impl Drop for Step {
    fn drop(&mut self) {
        if let Some((done, thread)) = self.spinner.take() {
            drop(done);
            let _ = thread.join();
        }
        if let Some((label, started)) = self.timed.take() {
            eprintln!("spf: {label} ({:.3} s)", started.elapsed().as_secs_f64());
        }
    }
}

impl Observer for Progress {
    fn begin(&self, label: &str) -> observe::Step {
        observe::Step::with(self.start(label))
    }

    fn note(&self, line: &str) {
        eprintln!("spf: note: {line}");
    }

    fn detail(&self, line: &str) {
        if self.verbose {
            eprintln!("{line}");
        }
    }

    fn wants_details(&self) -> bool {
        self.verbose
    }
}
