//! The in-process bench's worker with the system allocator: the library
//! as any Rust program that uses it runs it (`bench::in_process`).

fn main() -> std::process::ExitCode {
    bench::in_process::worker_main()
}
