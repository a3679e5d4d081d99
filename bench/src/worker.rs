//! A measuring process kept between requests: it prepares its job once,
//! then runs it once for each line `run` it reads on standard input and
//! answers each with a JSON line `{"time": seconds}` (timed inside the
//! process); at the end of its input it prints one last JSON line of its
//! own (a peak, a check). Several workers answered in turn are measured
//! over the same stretch of time: a slow spell of the machine slows all
//! of them, not one side's runs.
//!
//! The scipy script of the end-to-end bench (`bench/end_to_end.py`), the
//! in-process bench's Python sides (`bench/in_process.py`) and its Rust
//! sides ([`crate::in_process::worker_main`]) speak this protocol.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// A running worker.
pub struct Worker {
    label: String,
    child: Child,
    requests: Option<ChildStdin>,
    answers: BufReader<ChildStdout>,
}

impl Worker {
    /// Starts `command` as the worker `label` (its messages go where the
    /// bench's go: a pipe nobody reads until the end could fill up and
    /// stop it).
    ///
    /// # Errors
    ///
    /// When the command cannot be started.
    pub fn start(mut command: Command, label: &str) -> Result<Worker, String> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("{label}: {e}"))?;
        let (Some(requests), Some(answers)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(format!("{label}: no pipes to the worker"));
        };
        Ok(Worker {
            label: label.to_string(),
            child,
            requests: Some(requests),
            answers: BufReader::new(answers),
        })
    }

    /// The worker's name in messages.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The next JSON line the worker prints; an error naming its exit
    /// when it prints none.
    pub fn answer(&mut self) -> Result<serde_json::Value, String> {
        let mut line = String::new();
        let read = self.answers.read_line(&mut line).unwrap_or(0);
        if read == 0 {
            let status = self
                .child
                .wait()
                .map_or("unknown".into(), |s| s.to_string());
            return Err(format!(
                "{} stopped without an answer ({status}; its messages are above)",
                self.label
            ));
        }
        serde_json::from_str(&line).map_err(|e| format!("{} printed no JSON line: {e}", self.label))
    }

    /// One run of the job: its seconds.
    ///
    /// # Errors
    ///
    /// When the worker stopped or answered without a time.
    pub fn once(&mut self) -> Result<f64, String> {
        let requests = self
            .requests
            .as_mut()
            .ok_or_else(|| format!("{}: finished", self.label))?;
        writeln!(requests, "run")
            .and_then(|()| requests.flush())
            .map_err(|e| format!("{}: {e}", self.label))?;
        self.answer()?["time"]
            .as_f64()
            .ok_or_else(|| format!("{} reported no time", self.label))
    }

    /// Ends the worker: its last line.
    ///
    /// # Errors
    ///
    /// When it prints none.
    pub fn finish(mut self) -> Result<serde_json::Value, String> {
        // The end of the requests is the worker's cue to report.
        self.requests.take();
        let line = self.answer()?;
        let _ = self.child.wait();
        Ok(line)
    }
}

/// The median of `v` (sorted in place; its upper middle for an even
/// count).
///
/// # Panics
///
/// When `v` is empty.
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
