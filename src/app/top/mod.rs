//! `nvq top`: the interactive view.
//!
//! Besides the GPU lanes, four threads wait for something:
//! - the **input** thread for keys and resizes;
//! - the **signal** thread for SIGINT, SIGTERM or SIGHUP;
//! - the **job control** thread for SIGTSTP and SIGCONT: the UI thread puts
//!   the terminal back and stops (as on Ctrl+Z, which raw mode delivers as
//!   a key), and takes the terminal again and draws it whole once
//!   continued, as htop and nvtop do;
//! - the **alarm** thread (`schedule::alarm`) for the checkpoint of a
//!   sample that is late.
//!
//! The screen's state (the schedule, the history, the terminal: `ui::Loop`)
//! is shared, under one lock, by the UI thread (this one), which handles
//! keys, signals and the alarm, and the lanes of
//! `schedule::deadline::PerGpu`, which read every selected GPU. A lane that
//! has run out of a sample's work handles the sample itself (history, leak
//! marks, the frame) and begins the next, which it starts on the next tick
//! on its own timer; it sets the alarm to that sample's checkpoint (halfway
//! to the deadline, then the deadline). So while the GPUs answer, a sample
//! costs one wake-up, the lane's, and the alarm, moved on each time before
//! it comes, never rings. A hung GPU keeps its lane in a call, never holding
//! the lock: the alarm rings, the UI thread splits the lane or ends the
//! sample with the GPU marked late, and the keys go on being answered. The
//! GPUs are never read on the UI thread. A frame is drawn only when
//! something shown changed, and only the changed cells are written.
//!
//! A file per part: `options` (the checked options, `Plan`), `handoff`
//! (what `nvq top` hands to `nvq-top`), `collector` (the lanes that read
//! the GPUs or the nodes, and a sample put together), `marks` (the history
//! and the leak marks), `once` (`--once`'s one frame) and `ui` (the
//! screen's loop: threads, schedule, keys, frames).

mod collector;
mod handoff;
mod marks;
mod once;
mod options;
mod ui;

pub use handoff::{Handoff, Nodes, TOP_EXECUTABLE};
pub use marks::HISTORY_CAP;

use super::plan::Common;
use crate::cli::top::TopArgs;
use collector::{Collector, Source};
use nvq_core::error::NvqError;
use nvq_core::nvml::{LibSource, NotInstalled, Session};
use options::plan;
use std::io::IsTerminal;
use std::os::unix::process::CommandExt;
use std::sync::Arc;

pub fn run(a: &TopArgs, common: &Common<'_>) -> Result<(), NvqError> {
    let plan = plan(a, common.interval)?;
    let terminal = std::io::stdout().is_terminal() && std::io::stdin().is_terminal();
    if !(plan.once || terminal) {
        return Err(NvqError::Usage(
            "top: needs a terminal; for one frame as text use `nvq top --once`.".into(),
        ));
    }
    let handoff = Handoff {
        plan,
        id: common.id.map(str::to_string),
        lib: common.lib.resolve()?,
        hosts: nodes(common)?,
    };
    // With stdout closed at the start, the runtime put /dev/null there:
    // the other program would not know. Then nvq runs the screen itself.
    if !crate::output::stdout_closed() {
        match nvq_core::nvml::find_installed(TOP_EXECUTABLE) {
            Ok(exe) => {
                // Only returns when the program could not be started.
                let _ = std::process::Command::new(exe)
                    .args(handoff.to_args())
                    .exec();
            }
            // Another user could have put it there: never run it (nvq may
            // be root), say so, and draw the screen here.
            Err(NotInstalled::Untrusted(why)) => {
                eprintln!(
                    "nvq: top: not running {TOP_EXECUTABLE}: {why} nvq draws the screen itself."
                );
            }
            Err(NotInstalled::Missing(_)) => {}
        }
    }
    run_checked(&handoff)
}

/// `--hosts` (or `$NVQ_HOSTS`) for `nvq top`: the nodes, checked (their
/// credential and TLS files read once here, to fail before the screen).
fn nodes(common: &Common<'_>) -> Result<Option<Nodes>, NvqError> {
    let a = common.hosts;
    let Some(list) = super::hosts::named(a)? else {
        return Ok(None);
    };
    if common.id.is_some() {
        return Err(NvqError::Usage(
            "-i selects local GPUs; nvq top --hosts shows every GPU of the nodes.".into(),
        ));
    }
    let options = super::hosts::options(a);
    super::hosts::client(&list, &options)?;
    Ok(Some(Nodes {
        entries: list.into_iter().map(|h| h.name).collect(),
        options,
    }))
}

/// `nvq top` with its options checked: in nvq itself, or in [`TOP_EXECUTABLE`].
pub fn run_checked(h: &Handoff) -> Result<(), NvqError> {
    let plan = &h.plan;
    if !plan.once {
        crate::schedule::signals::arm();
    }
    let source = match &h.hosts {
        Some(n) => {
            let hosts = n
                .entries
                .iter()
                .map(|e| crate::hosts::list::parse_entry(e))
                .collect::<Result<Vec<_>, _>>()?;
            let client = super::hosts::client(&hosts, &n.options)?;
            let title = format!(
                "nvq top · {} host{}",
                hosts.len(),
                if hosts.len() == 1 { "" } else { "s" }
            );
            Source::Hosts(hosts, client, title)
        }
        None => {
            let lib = match &h.lib {
                Some(p) => LibSource::Path(p.clone()),
                None => LibSource::System,
            };
            let session = Arc::new(Session::open(&lib)?);
            let devices = nvq_core::nvml::select::select(&session, h.id.as_deref())?;
            let title = format!(
                "nvq top · driver {}",
                session.driver_version().unwrap_or("?")
            );
            Source::Local(session, devices, title)
        }
    };
    let title = match &source {
        Source::Hosts(.., t) | Source::Local(.., t) => t.clone(),
    };
    if plan.once {
        let mut collector = Collector::start(&source, plan.interval_ms, None)?;
        return once::once(plan, &mut collector, &title);
    }
    ui::run(plan, &source, title)
}
