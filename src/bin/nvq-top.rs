//! `nvq top`'s screen as a program of its own: `nvq top` checks its options
//! and replaces itself with this one (see `nvq::app::top::Handoff`), which
//! holds `top`'s code without the rest of nvq's, and so less memory for as
//! long as the screen stays open.

use nvq::app::top::{run_checked, Handoff};
use nvq::{output, ExitCode, Personality};
use std::io::Write;

fn main() {
    nvq_core::error::install_panic_hook();
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let code = match Handoff::parse(&args).and_then(|h| run_checked(&h)) {
        Ok(()) => ExitCode::Success,
        Err(e) if output::is_broken_pipe(&e) => ExitCode::Success,
        Err(e) => {
            let _ = std::io::stderr().write_all(e.nvq_text(e.hint()).as_bytes());
            e.exit_code_as(Personality::Nvq)
        }
    };
    std::process::exit(code.code());
}
