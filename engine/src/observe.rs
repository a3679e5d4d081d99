//! What a caller sees of a conversion while it runs: its steps (reading,
//! checking, compiling, converting, writing), the notes a user should read
//! (an engine that fell back), and the details a verbose caller asks for
//! (which library was compiled or found in the cache). The engine never
//! prints: it tells an [`Observer`], and the `spf` command's observer
//! draws spinners and lines on standard error.

/// Receives a conversion's steps and messages. Every method has a default
/// that does nothing, so [`Quiet`] is the empty implementation. Steps may
/// overlap (a result is written on one thread while it is checked on
/// another).
pub trait Observer: Send + Sync {
    /// The step `label` (`reading m.mtx`) begins; it ends when the guard
    /// returned is dropped.
    fn begin(&self, label: &str) -> Step {
        let _ = label;
        Step::none()
    }

    /// A note the user should read (`converting in the interpreter
    /// (slower): …`).
    fn note(&self, line: &str) {
        let _ = line;
    }

    /// A detail for a verbose caller (`cached library …`).
    fn detail(&self, line: &str) {
        let _ = line;
    }

    /// Whether [`Observer::detail`] is shown: when it is not, the engine
    /// need not compose the lines.
    fn wants_details(&self) -> bool {
        false
    }
}

/// A step in progress: whatever the observer keeps for it is dropped when
/// the step ends.
#[must_use = "the step ends when this is dropped"]
pub struct Step {
    /// Kept only to be dropped at the step's end.
    _guard: Option<Box<dyn Send>>,
}

impl Step {
    /// A step the observer keeps nothing for.
    pub fn none() -> Step {
        Step { _guard: None }
    }

    /// A step that ends by dropping `guard`.
    pub fn with(guard: impl Send + 'static) -> Step {
        Step {
            _guard: Some(Box::new(guard)),
        }
    }
}

/// An observer that shows nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Quiet;

impl Observer for Quiet {}

/// Runs `work` as the step `label` of `observer` and gives its result.
pub fn step<T>(observer: &dyn Observer, label: &str, work: impl FnOnce() -> T) -> T {
    let _step = observer.begin(label);
    work()
}
