//! The nvq binary: parse, run, map errors to exit codes.

use nvq::cli::{self, Parsed};
use nvq::{output, ExitCode, Personality};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Was descriptor 1 closed when the process started (`nvq ... >&-`)? The Rust
/// runtime opens `/dev/null` on a closed standard descriptor before `main`,
/// so this is read earlier, by a constructor in `.init_array`.
static STDOUT_CLOSED_AT_START: AtomicBool = AtomicBool::new(false);

extern "C" fn at_process_start() {
    // As early as can be: a stop signal inherited ignored is held from
    // here on (see `signals::hold_ignored`).
    nvq::schedule::signals::hold_ignored();
    // SAFETY: fcntl(F_GETFD) only reads the flags of a descriptor number.
    if unsafe { libc::fcntl(libc::STDOUT_FILENO, libc::F_GETFD) } == -1 {
        STDOUT_CLOSED_AT_START.store(true, Ordering::SeqCst);
    }
}

#[used]
#[link_section = ".init_array"]
static AT_PROCESS_START: extern "C" fn() = at_process_start;

fn main() {
    nvq_core::error::install_panic_hook();
    if STDOUT_CLOSED_AT_START.load(Ordering::SeqCst) {
        output::set_stdout_closed();
    }
    let mut argv = std::env::args_os();
    let personality = Personality::from_argv0(argv.next().as_deref());
    let code = match cli::parse(argv.collect()).and_then(|p| match p {
        // A help text that cannot be written is an error too (exit 22).
        Parsed::Help(text) => output::Sink::stdout().write(text.as_bytes()),
        Parsed::Run(args) => nvq::app::run_as(&args, personality),
    }) {
        Ok(()) => ExitCode::Success,
        Err(e) if output::is_broken_pipe(&e) => ExitCode::Success,
        // `nvq wait -- CMD`: the command's own exit status, 128 + N when
        // a signal cancelled it, 127/126 (with nvq's message) when it
        // cannot run.
        Err(e) if e.command_status().is_some() => {
            let text = e.to_string();
            if !text.is_empty() {
                let _ = std::io::stderr().write_all(text.as_bytes());
            }
            std::process::exit(e.command_status().unwrap_or(ExitCode::Other.code()));
        }
        Err(e) => {
            let hint = cli::hint(&e);
            let _ = match personality {
                // nvidia-smi's text on stdout; a suggestion on stderr.
                Personality::NvidiaSmi => {
                    let _ = std::io::stdout().write_all(e.to_string().as_bytes());
                    match hint {
                        Some(h) => std::io::stderr().write_all(format!("nvq: {h}\n").as_bytes()),
                        None => Ok(()),
                    }
                }
                Personality::Nvq => {
                    std::io::stderr().write_all(e.nvq_text(hint.as_deref()).as_bytes())
                }
            };
            e.exit_code_as(personality)
        }
    };
    std::process::exit(code.code());
}
