//! nvq's short everyday commands, each declared once as a query of the
//! table below, run through the same plan and runner as `--query-*`.

use super::plan::Common;
use super::{run_query, QueryPlan};
use crate::cli::short::WaitArgs;
use crate::cli::Command;
use nvq_core::error::NvqError;
use nvq_core::source::QueryMode;
use std::path::Path;

/// A short command: the query it stands for.
pub struct Short {
    pub name: &'static str,
    pub mode: QueryMode,
    pub fields: &'static str,
    /// A `--where` the command applies unless one is given.
    pub where_: Option<&'static str>,
}

/// Every short command but `wait`, in `--help` order.
pub const SHORTS: &[Short] = &[
    Short {
        name: "mem",
        mode: QueryMode::GPU,
        // memory.derived: a unified-memory GPU's memory is the system's, marked.
        fields:
            "index,name,memory.total,memory.used,memory.free,memory.used.percent,memory.derived",
        where_: None,
    },
    Short {
        name: "ps",
        mode: QueryMode::COMPUTE_APPS,
        fields: "gpu_index,pid,user,used_memory,command_line",
        where_: None,
    },
    Short {
        name: "busy",
        mode: QueryMode::GPU,
        fields: "index,name,utilization.gpu,memory.used,memory.total,compute_apps.count",
        where_: Some("utilization.gpu > 0 || compute_apps.count > 0"),
    },
];

/// What `nvq wait` waits for, unless `--until`/`--until-all` says: every
/// selected GPU runs no compute process.
pub const FREE: &str = "compute_apps.count == 0";

/// `nvq wait --hosts`: the variables that tell the command run after `--`
/// (on this machine) which node and GPU were found free.
pub const HOST_ENV: &str = "NVQ_HOST";
pub const GPU_ENV: &str = "NVQ_GPU";

/// The fields `nvq wait` reads each second.
pub(crate) const WAIT_FIELDS: &str = "index,compute_apps.count,utilization.gpu,memory.used";

/// Run `nvq mem`, `nvq ps` or `nvq busy`.
pub fn run(command: &Command, common: &Common<'_>) -> Result<(), NvqError> {
    let name = command.name();
    let Some(short) = SHORTS.iter().find(|s| s.name == name) else {
        return Err(NvqError::Usage(format!("{name} is not a short command")));
    };
    let mut common = common.clone();
    if common.script.where_.is_none() {
        common.script.where_ = short.where_;
    }
    let plan = QueryPlan::from_args(&common, short.mode, short.fields)?;
    run_query(&common, &plan)
}

/// `nvq wait [-i ...] [--until ...] -- COMMAND`: loop (every second unless
/// `-l`/`-lms`) until the GPUs are free, then run the command and exit
/// with its status (see `child`). The samples go to `-f` if one is given,
/// else nowhere (in CSV: no format default stops the command). A stop
/// signal while waiting cancels the command: it is not run, exit 128 + N.
pub fn wait(w: &WaitArgs, common: &Common<'_>) -> Result<(), NvqError> {
    let mut common = common.clone();
    let nodes = super::hosts::wanted(&common, QueryMode::GPU)?;
    if common.script.until.is_none() && common.script.until_all.is_none() {
        // Across nodes: until a GPU on any of them is free.
        match nodes {
            Some(_) => common.script.until = Some(FREE),
            None => common.script.until_all = Some(FREE),
        }
    }
    if common.filename.is_none() {
        common.filename = Some(Path::new("/dev/null"));
        common.format = Some(crate::cli::format::Format::Rows(
            nvq_core::render::FormatSpec::parse("csv")?,
        ));
    }
    let plan = QueryPlan::from_args(&common, QueryMode::GPU, WAIT_FIELDS)?;
    let mut env = Vec::new();
    match nodes {
        Some((hosts, client)) => {
            let found = super::hosts::wait_for(&common, &plan, hosts, client)?;
            if let Some(sig) = crate::schedule::signals::stop_signal() {
                return Err(NvqError::Cancelled(sig));
            }
            if let Some((host, gpu)) = found {
                super::hosts::print_found(&host, gpu)?;
                env = vec![(HOST_ENV, host), (GPU_ENV, gpu.to_string())];
            }
        }
        None => run_query(&common, &plan)?,
    }
    if let Some(sig) = crate::schedule::signals::stop_signal() {
        return Err(NvqError::Cancelled(sig));
    }
    if w.command.is_empty() {
        return Ok(());
    }
    crate::child::arm(crate::child::WAIT_SIGNALS);
    let job = crate::child::start_with(&w.command, &env)?;
    match job.wait()? {
        0 => Ok(()),
        code => Err(NvqError::ChildExit(code)),
    }
}
