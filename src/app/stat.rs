//! `nvq stat`: read the GPUs and their compute processes once, print one
//! line per GPU with its processes (`render::stat`).

use super::plan::Common;
use crate::output::Sink;
use nvq_core::error::NvqError;
use nvq_core::source::{self, QueryMode, Request};

/// What each GPU's line shows, in `render::stat`'s order.
const GPU_FIELDS: &str = "index,name,temperature.gpu,utilization.gpu,memory.used,memory.total";

/// What each process shows, in `render::stat`'s order.
const PROC_FIELDS: &str = "gpu_index,pid,user,used_memory,process_name";

/// Run `nvq stat [-i ID] [-f FILE]`.
pub fn run(common: &Common<'_>) -> Result<(), NvqError> {
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
