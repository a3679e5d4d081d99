//! The in-process bench's worker under the allocator the `spf` command
//! installs (large blocks in huge pages, freed blocks kept): what `spf
//! convert`'s conversion runs under (`bench::in_process`).

#[global_allocator]
static ALLOCATOR: engine::memory::huge_pages::HugePages = engine::memory::huge_pages::HugePages;

fn main() -> std::process::ExitCode {
    bench::in_process::worker_main()
}
