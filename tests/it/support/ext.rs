//! Real external peers, installed on first use from the package registries into a
//! cache under `target/ext` (override with `TOOLROUTER_EXT_DIR`). `.ci/run`
//! installs them ahead of the tests; a developer's first `cargo test` does it too
//! (README: what it installs, how large, and how to run without network).
//! Installs are serialised with a lock file, so parallel tests share one install.

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The cache directory.
pub fn ext_dir() -> PathBuf {
    match std::env::var_os("TOOLROUTER_EXT_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => super::repo_root().join("target").join("ext"),
    }
}

/// Runs `f` while holding an exclusive lock on `dir/.lock`.
fn locked<T>(dir: &Path, f: impl FnOnce() -> T) -> T {
    std::fs::create_dir_all(dir).expect("create ext dir");
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(".lock"))
        .expect("open lock file");
    lock.lock().expect("take install lock");
    let out = f();
    let _ = lock.unlock();
    out
}

fn run(cmd: &mut Command, what: &str) {
    let status = cmd
        .status()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    assert!(status.success(), "{what} failed with {status}");
}

/// A Python interpreter with the `mcp` SDK importable (a venv in the cache).
pub fn python_with_mcp() -> PathBuf {
    python_with("mcp", &["mcp>=1.20"])
}

/// A Python interpreter with the official `openai` SDK importable (the same
/// venv; `anthropic` comes with it).
pub fn python_with_openai() -> PathBuf {
    python_with("openai", &["openai>=1.50", "anthropic>=0.40"])
}

/// A Python interpreter with the official `anthropic` SDK importable (the
/// same venv and packages as [`python_with_openai`]).
pub fn python_with_anthropic() -> PathBuf {
    python_with("anthropic", &["openai>=1.50", "anthropic>=0.40"])
}

/// The cache's venv, with `specs` installed unless `module` already imports.
/// `.ci/setup-python.sh` installs the same packages, under the same lock.
fn python_with(module: &str, specs: &[&str]) -> PathBuf {
    let venv = ext_dir().join("py");
    let python = venv.join("bin").join("python3");
    locked(&ext_dir(), || {
        let imports = |python: &Path| {
            // Quiet: a missing module is the expected answer before the first
            // install, not a failure to show.
            Command::new(python)
                .args(["-c", &format!("import {module}")])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .map(|s| s.success())
                .unwrap_or(false)
        };
        if python.exists() && imports(&python) {
            return;
        }
        if !python.exists() {
            run(
                Command::new("python3").args(["-m", "venv"]).arg(&venv),
                "python3 -m venv",
            );
        }
        run(
            Command::new(&python)
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                ])
                .args(specs),
            &format!("pip install {}", specs.join(" ")),
        );
    });
    python
}

/// The path of an npm package's installed binary, installing `spec`
/// (`name@version`) into the cache first if needed.
pub fn npm_bin(spec: &str, bin: &str) -> PathBuf {
    let path = ext_dir()
        .join("npm")
        .join("node_modules")
        .join(".bin")
        .join(bin);
    npm_install_unless(&[spec], || path.exists());
    assert!(path.exists(), "{spec} installed no `{bin}` binary");
    path
}

/// A `node_modules` directory holding the npm packages `specs`
/// (`name@version`), installed into the cache first unless `marker` (a
/// package name) is already there. `.ci/setup-npm.sh` installs the same.
pub fn npm_modules(specs: &[&str], marker: &str) -> PathBuf {
    let modules = ext_dir().join("npm").join("node_modules");
    let installed = || modules.join(marker).join("package.json").exists();
    npm_install_unless(specs, installed);
    assert!(installed(), "{} did not install {marker}", specs.join(" "));
    modules
}

/// Installs `specs` into the cache's npm prefix, under the install lock,
/// unless `installed` says they are there.
fn npm_install_unless(specs: &[&str], installed: impl Fn() -> bool) {
    let prefix = ext_dir().join("npm");
    locked(&ext_dir(), || {
        if !installed() {
            run(
                Command::new("npm")
                    .args([
                        "install",
                        "--no-audit",
                        "--no-fund",
                        "--loglevel=error",
                        "--prefix",
                    ])
                    .arg(&prefix)
                    .args(specs),
                &format!("npm install {}", specs.join(" ")),
            );
        }
    });
}

/// llama.cpp's `llama-server` and the SmolLM2-135M-Instruct model that
/// `.ci/setup-llama.sh` builds and unpacks into the cache (`llama/`): `None`
/// when they are not there (a build takes about 15 minutes, so the tests do
/// not start one). With `TOOLROUTER_REQUIRE_LLAMA=1` (`.ci/run` sets it),
/// their absence fails instead.
pub fn llama_server() -> Option<(PathBuf, PathBuf)> {
    let dir = ext_dir().join("llama");
    let server = dir.join("bin").join("llama-server");
    let model = dir.join("SmolLM2-135M-Instruct.Q4_1.gguf");
    if server.is_file() && model.is_file() {
        return Some((server, model));
    }
    let required = std::env::var_os("TOOLROUTER_REQUIRE_LLAMA").is_some_and(|v| v == "1");
    assert!(
        !required,
        "TOOLROUTER_REQUIRE_LLAMA=1 but {} or {} is missing: run .ci/setup-llama.sh",
        server.display(),
        model.display()
    );
    None
}
