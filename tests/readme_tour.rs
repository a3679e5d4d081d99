//! The README's tour, run: every ```` ```console ```` block of README.md (and
//! of the pages in docs/) is a sequence of commands, each a line `$ CMD`
//! followed by the output the page shows for it. Each page's blocks run in
//! order, in one scratch directory that holds links to the repository's
//! `tests/`, `examples/` and `descriptors/`, with the `spf` under test
//! first on the `PATH`; each command runs under `sh`, standard error merged
//! into standard output, and must succeed and print what the page shows.
//!
//! In a page's expected output, a line `...` stands for any number of
//! lines (none included), and `...` inside a line for any text. A block
//! preceded by the line `<!-- tour-file: NAME -->` is not run: its text is
//! written to NAME in the scratch directory, where the commands after it
//! find it. Other blocks (`sh`, `python`, `text`) are shown, not run.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::text;

/// The repository's root.
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// What a page asks for, in order.
#[derive(Debug)]
enum Step {
    /// A file to write before the commands after it.
    File { name: String, text: String },
    /// A command and the output the page shows for it.
    Command {
        line: usize,
        command: String,
        expected: Vec<String>,
    },
}

/// The steps of `page`'s text: its tour files and console blocks.
fn steps(page: &str) -> Vec<Step> {
    let lines: Vec<&str> = page.lines().collect();
    let mut steps = Vec::new();
    let mut file_name: Option<String> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_end();
        if let Some(name) = line
            .strip_prefix("<!-- tour-file:")
            .and_then(|rest| rest.strip_suffix("-->"))
        {
            file_name = Some(name.trim().to_string());
            i += 1;
            continue;
        }
        let Some(info) = line.strip_prefix("```") else {
            i += 1;
            continue;
        };
        // A fenced block: its body runs to the closing fence.
        let start = i + 1;
        let mut end = start;
        while end < lines.len() && !lines[end].trim_end().starts_with("```") {
            end += 1;
        }
        let body = &lines[start..end];
        if let Some(name) = file_name.take() {
            let mut text = body.join("\n");
            text.push('\n');
            steps.push(Step::File { name, text });
        } else if info.trim() == "console" {
            for (k, l) in body.iter().enumerate() {
                if let Some(command) = l.strip_prefix("$ ") {
                    steps.push(Step::Command {
                        line: start + k + 1,
                        command: command.to_string(),
                        expected: Vec::new(),
                    });
                } else if let Some(Step::Command { expected, .. }) = steps.last_mut() {
                    expected.push(l.trim_end().to_string());
                } else {
                    panic!(
                        "line {}: a console block starts with a command (`$ ...`)",
                        start + k + 1
                    );
                }
            }
        }
        i = end + 1;
    }
    steps
}

/// Whether `line` matches the expected `pattern`, in which `...` stands
/// for any text.
fn line_matches(pattern: &str, line: &str) -> bool {
    let mut parts = pattern.split("...");
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = line.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// Whether `actual` matches `expected`, in which a line `...` stands for
/// any number of lines.
fn lines_match(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first == "..." => {
            (0..=actual.len()).any(|skip| lines_match(rest, &actual[skip..]))
        }
        Some((first, rest)) => actual
            .split_first()
            .is_some_and(|(a, more)| line_matches(first, a) && lines_match(rest, more)),
    }
}

/// A fresh scratch directory with links to the repository's folders the
/// tour reads.
fn scratch(name: &str) -> PathBuf {
    let dir = common::temp("readme-tour", &name.replace(['/', '.'], "-"));
    for folder in ["tests", "examples", "descriptors"] {
        let link = dir.join(folder);
        if !link.exists() {
            std::os::unix::fs::symlink(Path::new(ROOT).join(folder), &link).expect("link");
        }
    }
    dir
}

/// Runs `page`'s steps in a scratch directory called `name`, and returns
/// it.
fn run_page(name: &str, page: &str) -> PathBuf {
    let dir = scratch(name);
    let spf = PathBuf::from(env!("CARGO_BIN_EXE_spf"));
    let path = std::env::join_paths(
        std::iter::once(spf.parent().expect("the binary's folder").to_path_buf()).chain(
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
        ),
    )
    .expect("a PATH");
    let steps = steps(page);
    assert!(
        steps.iter().any(|s| matches!(s, Step::Command { .. })),
        "{name} has no console block"
    );
    for step in steps {
        match step {
            Step::File { name: file, text } => {
                std::fs::write(dir.join(&file), text).expect("tour file written")
            }
            Step::Command {
                line,
                command,
                expected,
            } => {
                let out = Command::new("sh")
                    .arg("-c")
                    .arg(format!("exec 2>&1\n{command}"))
                    .current_dir(&dir)
                    .env("PATH", &path)
                    .env(
                        "SPF_CACHE_DIR",
                        std::env::temp_dir().join("spf-tests-cache"),
                    )
                    .output()
                    .expect("sh runs");
                let printed = text(&out.stdout);
                let actual: Vec<&str> = printed.lines().map(str::trim_end).collect();
                assert!(
                    out.status.success(),
                    "{name}:{line}: `{command}` failed ({}):\n{printed}",
                    out.status
                );
                assert!(
                    lines_match(&expected, &actual),
                    "{name}:{line}: `{command}` printed\n{printed}\nwhere the page shows\n{}",
                    expected.join("\n")
                );
            }
        }
    }
    dir
}

#[test]
fn the_readme_tour_prints_what_the_readme_shows() {
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).expect("README.md");
    let dir = run_page("README.md", &readme);
    // The picture the README shows is the one the tour draws.
    let drawn = std::fs::read_to_string(dir.join("coo_csr.svg")).expect("the tour draws it");
    let shown = std::fs::read_to_string(Path::new(ROOT).join("docs/coo_csr.svg"))
        .expect("docs/coo_csr.svg");
    assert!(
        drawn == shown,
        "docs/coo_csr.svg is not what `spf pdfg coo csr -o coo_csr.svg` draws: copy the new one"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_readme_lists_every_built_in_format() {
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).expect("README.md");
    for name in spf::synth::builtin::builtin_names() {
        let row = format!("| `{name}` | ");
        let line = readme.lines().find(|l| l.starts_with(&row));
        let line =
            line.unwrap_or_else(|| panic!("README.md's table of formats has no row for `{name}`"));
        // The row says what `spf.formats()` and `Format::builtins` say.
        let summary = spf::synth::builtin::summary(name).expect("a summary");
        assert!(
            line[row.len()..].starts_with(summary),
            "README.md's row for `{name}` does not start with its summary `{summary}`: {line}"
        );
    }
}

#[test]
fn the_console_blocks_of_the_docs_print_what_they_show() {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(Path::new(ROOT).join("docs"))
        .expect("docs/")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    for page in pages {
        let text = std::fs::read_to_string(&page).expect("a page");
        if text.contains("```console") {
            let name = format!("docs/{}", page.file_name().unwrap().to_string_lossy());
            let dir = run_page(&name, &text);
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

#[test]
fn elisions_match_as_the_module_says() {
    let lines = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(lines_match(
        &lines(&["a", "...", "d"]),
        &["a", "b", "c", "d"]
    ));
    assert!(lines_match(&lines(&["a", "...", "b"]), &["a", "b"]));
    assert!(!lines_match(&lines(&["a", "...", "d"]), &["a", "b", "c"]));
    assert!(!lines_match(&lines(&["a", "b"]), &["a", "b", "c"]));
    assert!(line_matches("x: ..., y: 2", "x: 1, y: 2"));
    assert!(line_matches("...", ""));
    assert!(!line_matches("x: ..., y: 2", "x: 1, y: 3"));
    assert!(!line_matches("ab...ba", "aba"));
}
