//! `nvq stat`: read the GPUs and their compute processes once, print one
//! line per GPU with its processes (`render::stat`). With `--hosts`, every
//! node's GPUs and processes, read through `hosts` under one deadline, the
//! lines grouped by node with its name first.

use super::plan::Common;
use crate::hosts::{self, Client, Failure, Host};
use crate::output::Sink;
use nvq_core::error::NvqError;
use nvq_core::model::Row;
use nvq_core::source::{self, QueryMode, Request};
use std::time::Instant;

/// What each GPU's line shows, in `render::stat`'s order (`memory.derived`:
/// a unified-memory GPU's memory is the system's, marked).
pub(crate) const GPU_FIELDS: &str =
    "index,name,temperature.gpu,utilization.gpu,memory.used,memory.total,memory.derived";

/// What each process shows, in `render::stat`'s order.
pub(crate) const PROC_FIELDS: &str = "gpu_index,pid,user,used_memory,process_name";

/// Run `nvq stat [-i ID] [-f FILE]`.
pub fn run(common: &Common<'_>) -> Result<(), NvqError> {
    if let Some((nodes, client)) = super::hosts::wanted(common, QueryMode::GPU)? {
        return run_hosts(common, nodes, client);
    }
    let gpu_fields = QueryMode::GPU.resolve(GPU_FIELDS)?;
    let proc_fields = QueryMode::COMPUTE_APPS.resolve(PROC_FIELDS)?;
    let session = common.session()?;
    let devices = common.gpus(&session)?;
    let count = session.device_count().unwrap_or(0);
    let targets = source::targets(&session, &devices);
    let read = |mode: QueryMode, fields: &[usize]| {
        mode.collect(&session, &targets, &Request::new(fields, count, false))
    };
    let gpus = read(QueryMode::GPU, &gpu_fields);
    let procs = read(QueryMode::COMPUTE_APPS, &proc_fields);
    let text = nvq_core::render::stat::render(&gpus, &procs);
    Sink::open(common.filename)?.write(text.as_bytes())
}

/// What one node gave: its GPUs' rows and its processes' rows (or the
/// name of its exporter, which lists none).
type NodeRead = Result<(Vec<Row>, Result<Vec<Row>, &'static str>), Failure>;

/// `nvq stat --hosts`: every node at once, each on a lane, under one
/// deadline; a node that fails or is late is named on stderr (exit 23
/// after the others' lines).
fn run_hosts(common: &Common<'_>, nodes: Vec<Host>, client: Client) -> Result<(), NvqError> {
    let names = |mode: QueryMode, list: &str| -> Result<Vec<&'static str>, NvqError> {
        let infos = mode.fields();
        Ok(mode
            .resolve(list)?
            .iter()
            .filter_map(|&i| infos.get(i).map(|f| f.name))
            .collect())
    };
    let gpu_fields = names(QueryMode::GPU, GPU_FIELDS)?;
    let proc_fields = names(QueryMode::COMPUTE_APPS, PROC_FIELDS)?;
    let wait = super::hosts::ONE_SHOT_WAIT;
    let deadline = Instant::now() + wait;
    let (mut lanes, _masters) = hosts::lanes::start(&nodes, &client, false, None, |mut conn| {
        let (g, p) = (gpu_fields.clone(), proc_fields.clone());
        move || -> NodeRead {
            let gpus = hosts::read_on(&mut conn, QueryMode::GPU.option(), &g, deadline)?;
            let procs =
                match hosts::read_on(&mut conn, QueryMode::COMPUTE_APPS.option(), &p, deadline) {
                    Ok((procs, _)) => Ok(procs),
                    // An exporter without a process list: its GPUs still show.
                    Err(Failure::NoProcesses(exporter)) => Err(exporter),
                    Err(f) => return Err(f),
                };
            Ok((gpus.0, procs))
        }
    })?;
    let reads = lanes.sample(deadline, |_| Err(Failure::Late));
    let mut read = Vec::new();
    let mut failed = 0;
    for (host, r) in nodes.iter().zip(reads) {
        let shown = super::hosts::shown(&host.name);
        match r {
            Ok((gpus, Ok(procs))) => read.push((host.name.as_str(), gpus, procs)),
            Ok((gpus, Err(exporter))) => {
                super::hosts::tell(&format!(
                    "{shown}: {} (its GPUs are shown without them)",
                    Failure::NoProcesses(exporter)
                ));
                read.push((host.name.as_str(), gpus, Vec::new()));
            }
            Err(Failure::Late) => {
                failed += 1;
                super::hosts::tell(&format!(
                    "{shown}: no answer within {:.1} s",
                    wait.as_secs_f64()
                ));
            }
            Err(f) => {
                failed += 1;
                super::hosts::tell(&f.about(&shown));
            }
        }
    }
    let text = nvq_core::render::stat::render_hosts(&read);
    Sink::open(common.filename)?.write(text.as_bytes())?;
    if failed > 0 {
        return Err(NvqError::Hosts(format!(
            "{failed} of {} node(s) could not be read",
            nodes.len()
        )));
    }
    Ok(())
}
