//! `nvq serve`: validate the options, open NVML, start the per-GPU workers,
//! and hand the server a collection that reads every GPU under the
//! scrape's deadline (the same collector and deadline as the loops).

use super::{start_workers, LateRows};
use crate::cli::{Args, ServeArgs};
use crate::error::NvqError;
use crate::model::{Column, GpuIdent, Row};
use crate::nvml::{select, Session};
use crate::render::exporter::Profile;
use crate::serve::{self, collect};
use crate::source::{self, QueryMode};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// `nvq serve`'s options, checked before NVML is touched.
pub struct ServePlan {
    pub profile: Profile,
    pub fields: Vec<usize>,
    pub interval: Duration,
    pub config: serve::Config,
}

impl ServePlan {
    pub fn from_args(s: &ServeArgs) -> Result<Self, NvqError> {
        let profile = Profile::parse(&s.profile)?;
        let mode = QueryMode::GPU;
        let fields = match &s.query_gpu {
            Some(list) => mode.resolve(list)?,
            None => (0..mode.fields().len()).collect(),
        };
        let interval = match s.collect_interval.trim() {
            "0" | "0s" => Duration::ZERO,
            v => crate::script::parse_duration("--collect.interval", v)?,
        };
        let read_timeout = crate::script::parse_duration("--web.read-timeout", &s.read_timeout)?;
        let max_connections = s
            .max_connections
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=65_536).contains(n))
            .ok_or_else(|| {
                NvqError::Usage(format!(
                    "--web.max-connections needs a number from 1 to 65536, not \"{}\".",
                    s.max_connections
                ))
            })?;
        let path = &s.telemetry_path;
        if !path.starts_with('/') || path == "/" || path == "/healthz" {
            return Err(NvqError::Usage(format!(
                "--web.telemetry-path needs a path that starts with / and is not / or /healthz, not \
                 \"{path}\"."
            )));
        }
        Ok(ServePlan {
            profile,
            fields,
            interval,
            config: serve::Config {
                telemetry_path: path.clone(),
                profile,
                read_timeout,
                max_connections,
            },
        })
    }
}

/// Run the exporter until SIGTERM or SIGINT.
pub fn run(args: &Args, s: &ServeArgs) -> Result<(), NvqError> {
    if !args.queries.is_empty() || args.format.is_some() || args.filename.is_some() {
        return Err(NvqError::InvalidCombination);
    }
    let plan = ServePlan::from_args(s)?;
    let session = Arc::new(Session::open(&args.lib_source())?);
    let id = s.id.as_deref().or(args.id.as_deref());
    let devices = select::select(&session, id)?;
    let count = session.device_count().unwrap_or(0);
    let mode = QueryMode::GPU;
    let infos = mode.fields();
    let major = session.driver_major();
    let columns: Vec<Column> = plan
        .fields
        .iter()
        .filter_map(|&i| infos.get(i))
        .map(|f| Column::from_info(f, major))
        .collect();
    let workers = start_workers(&session, &devices, mode, &plan.fields, count, true)
        .ok_or_else(|| NvqError::Serve("cannot start the threads that read the GPUs".into()))?;
    let job = collection(workers, LateRows::new(mode, &plan.fields, count), devices);
    let profile = plan.profile;
    let render: collect::RenderFn = Arc::new(move |rows: &[Row]| profile.render(&columns, rows));
    let collector = collect::Collector::new(job, plan.interval, render);
    let (listener, local) = serve::bind(&s.listen_address)?;
    serve::log(&format!(
        "listening on http://{local}{} (profile {}, {} GPU(s))",
        plan.config.telemetry_path, s.profile, count
    ));
    serve::run(listener, plan.config, collector)
}

/// One collection: every GPU read on the workers by the deadline; a GPU
/// that misses it gets its late row (its series are left out) and counts
/// as late. A late row keeps the identity the GPU last had.
fn collection(
    mut workers: crate::schedule::deadline::PerGpu<Vec<Row>>,
    late: LateRows,
    devices: Vec<u32>,
) -> collect::CollectFn {
    let mut last: Vec<Option<Arc<GpuIdent>>> = vec![None; devices.len()];
    Box::new(move |deadline| {
        let mut missed = 0;
        let mut when = None;
        let per_gpu = workers.sample(deadline, |i| {
            missed += 1;
            let when =
                when.get_or_insert_with(|| source::time::format_timestamp(SystemTime::now()));
            late.rows(devices[i], when, last[i].clone())
        });
        let mut rows = Vec::with_capacity(per_gpu.len());
        for (i, gpu_rows) in per_gpu.into_iter().enumerate() {
            if let Some(g) = gpu_rows.iter().find_map(|r| r.gpu.clone()) {
                last[i] = Some(g);
            }
            rows.extend(gpu_rows);
        }
        collect::Collected { rows, late: missed }
    })
}
