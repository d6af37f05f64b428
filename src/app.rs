//! What nvq does with parsed arguments.

use crate::cli::{self, Args};
use crate::deadline;
use crate::error::NvqError;
use crate::fields::{self, QueryMode};
use crate::filter::{self, Script, Verdict};
use crate::format::{self, Column, FormatSpec};
use crate::nvml::{select, Session};
use crate::output::looping::{self, End, Flow, Schedule};
use crate::output::{Sink, SinkMode};
use crate::Personality;
use std::sync::Arc;
use std::time::Duration;

/// A fully validated query, ready to run.
pub struct QueryPlan {
    pub mode: QueryMode,
    pub fields: Vec<usize>,
    pub format: FormatSpec,
    pub interval: Option<Duration>,
    pub count: Option<u64>,
    /// `--where`, `--assert`, `--until`, `--summary`.
    pub script: Script,
}

impl QueryPlan {
    /// Validate everything about a query before NVML is touched.
    pub fn from_args(args: &Args, mode: QueryMode, list: &str) -> Result<Self, NvqError> {
        let fields = mode.resolve(list)?;
        let format = match args.format.as_deref() {
            Some(f) => FormatSpec::parse(f)?,
            None => {
                return Err(NvqError::Usage(format!(
                    "--{} needs --format=csv[,noheader][,nounits].",
                    mode.option()
                )))
            }
        };
        let script = Script::new(mode, &fields, args.script_flags())?;
        if args.summary && format.kind == format::FormatKind::Prometheus {
            return Err(NvqError::Usage(
                "--summary is not available with --format=prometheus (a scrape has no run to summarise).".into(),
            ));
        }
        let interval = loop_interval(args)?.or_else(|| {
            script
                .needs_loop()
                .then_some(filter::script::UNTIL_DEFAULT_INTERVAL)
        });
        let count = loop_count(args, interval)?;
        Ok(QueryPlan {
            mode,
            fields,
            format,
            interval,
            count,
            script,
        })
    }
}

/// `-l[SEC]` / `-lms MS`: the loop interval, if any (both at once is an
/// invalid combination).
fn loop_interval(args: &Args) -> Result<Option<Duration>, NvqError> {
    match (&args.loop_sec, &args.loop_ms) {
        (Some(_), Some(_)) => Err(NvqError::InvalidCombination),
        (Some(s), None) => cli::parse_loop_sec(s).map(Some),
        (None, Some(ms)) => cli::parse_loop_ms(ms).map(Some),
        (None, None) => Ok(None),
    }
}

/// `--count N`, which needs a loop.
fn loop_count(args: &Args, interval: Option<Duration>) -> Result<Option<u64>, NvqError> {
    let count = args.count.as_deref().map(cli::parse_count).transpose()?;
    if count.is_some() && interval.is_none() {
        return Err(NvqError::Usage(
            "--count needs a loop: add -l/--loop=SEC or -lms/--loop-ms=MS.".into(),
        ));
    }
    Ok(count)
}

/// Run nvq. Output goes to stdout or the `-f` file; the caller prints errors.
pub fn run(args: &Args) -> Result<(), NvqError> {
    run_as(args, Personality::Nvq)
}

/// [`run`], knowing how nvq was invoked (the summary table may use colour
/// only in nvq's own mode).
pub fn run_as(args: &Args, personality: Personality) -> Result<(), NvqError> {
    if let Some(mode) = args.help_query() {
        let mut sink = Sink::stdout();
        return sink.write(fields::help::render(mode).as_bytes());
    }
    let queries = args.queries();
    if queries.len() > 1 {
        return Err(NvqError::InvalidCombination);
    }
    if args.version || args.list_gpus {
        if !queries.is_empty() || args.format.is_some() || (args.version && args.list_gpus) {
            return Err(NvqError::InvalidCombination);
        }
        return run_listing(args);
    }
    if let Some(&(mode, list)) = queries.first() {
        let plan = QueryPlan::from_args(args, mode, list)?;
        return run_query(args, &plan);
    }
    if args.format.is_some() {
        return Err(NvqError::InvalidCombination);
    }
    run_summary(args, personality)
}

/// No query option: print nvidia-smi's summary table (again every `-l`
/// interval).
fn run_summary(args: &Args, personality: Personality) -> Result<(), NvqError> {
    let interval = loop_interval(args)?;
    let count = loop_count(args, interval)?;
    let session = Session::open(&args.lib_source())?;
    let devices = select::select(&session, args.id.as_deref())?;
    let mut sink = Sink::open(args.filename.as_deref())?;
    let colour = personality == Personality::Nvq
        && crate::output::terminal::stdout_colour(args.filename.is_some());
    struct Tables<'a> {
        session: &'a Session,
        devices: &'a [u32],
        colour: bool,
    }
    impl looping::Samples for Tables<'_> {
        fn sample(&mut self, buf: &mut Vec<u8>) -> Result<Flow, NvqError> {
            let summary = fields::summary::collect(self.session, self.devices);
            format::summary_table::render(&summary, self.colour, buf);
            Ok(Flow::Continue)
        }
    }
    let schedule = Schedule {
        interval,
        count,
        deadline: None,
    };
    let mut tables = Tables {
        session: &session,
        devices: &devices,
        colour,
    };
    looping::drive(schedule, &mut sink, &mut tables).map(|_| ())
}

fn run_query(args: &Args, plan: &QueryPlan) -> Result<(), NvqError> {
    let mode = SinkMode::for_format(plan.format.kind.name());
    // A file replaced per sample is checked (and a device, FIFO or socket
    // refused) before NVML is touched; nothing is written to it yet.
    let replaced = match mode {
        SinkMode::ReplaceEachSample => Some(Sink::open_with(args.filename.as_deref(), mode)?),
        SinkMode::Append => None,
    };
    let session = Arc::new(Session::open(&args.lib_source())?);
    let devices = select::select(&session, args.id.as_deref())?;
    let count = session.device_count().unwrap_or(0);
    let major = session.driver_major();
    let infos = plan.mode.fields();
    let columns: Vec<Column> = plan
        .fields
        .iter()
        .filter_map(|&i| infos.get(i))
        .map(|f| Column::from_info(f, major))
        .collect();
    let mut sink = match replaced {
        Some(sink) => sink,
        None => Sink::open_with(args.filename.as_deref(), mode)?,
    };
    let colour = crate::output::terminal::stdout_colour(args.filename.is_some());
    let mut fmt = plan.format.formatter_with(colour);
    let ident = fmt.needs_gpu_ident();
    let schedule = Schedule {
        interval: plan.interval,
        count: plan.count,
        deadline: plan.script.timeout,
    };
    // GPU handles are looked up once; every sample of a loop reuses them.
    let targets = fields::gpu::targets(&session, &devices);
    let mut script = plan.script.clone();
    // In a loop each GPU is read on its own thread under a deadline
    // (see `crate::deadline`); one-shot queries read the GPUs in turn.
    let mut workers = schedule.interval.and_then(|iv| {
        start_workers(
            &session,
            &devices,
            plan.mode,
            script.read(),
            count,
            ident,
            iv,
        )
    });
    let late = LateRows::new(plan.mode, script.read(), count);
    let mut last: Vec<Option<Arc<format::GpuIdent>>> = vec![None; devices.len()];
    let mut failed = None;
    let end = looping::run_with(schedule, &columns, fmt.as_mut(), &mut sink, || {
        let read = script.read();
        let rows = match workers.as_mut() {
            Some(w) => {
                let per_gpu = w.sample(|i| late.rows(devices[i], last[i].clone()));
                let mut rows = Vec::with_capacity(per_gpu.len());
                for (i, gpu_rows) in per_gpu.into_iter().enumerate() {
                    if let Some(g) = gpu_rows.iter().find_map(|r| r.gpu.clone()) {
                        last[i] = Some(g);
                    }
                    rows.extend(gpu_rows);
                }
                rows
            }
            None => collect_rows(plan.mode, &session, &targets, &devices, count, read, ident),
        };
        let gpus = (plan.mode == QueryMode::Gpu).then_some(devices.as_slice());
        let (rows, verdict) = script.sample(rows, gpus);
        let flow = match verdict {
            Verdict::Continue => Flow::Continue,
            Verdict::UntilMet => Flow::Stop,
            Verdict::AssertFailed(msg) => {
                failed = Some(msg);
                Flow::Stop
            }
        };
        Ok((rows, flow))
    })?;
    if end == End::OutputClosed {
        return Ok(());
    }
    if let Some(summary) = &script.summary {
        let cols = filter::Summary::columns(&columns);
        // csv and table: an empty line between the tables; json and ndjson
        // rows say what they are with their "statistic" key.
        let mut buf = match plan.format.kind {
            format::FormatKind::Csv | format::FormatKind::Table => b"\n".to_vec(),
            _ => Vec::new(),
        };
        let mut fmt = plan.format.formatter();
        fmt.begin(&cols, &mut buf);
        fmt.sample(&cols, &summary.rows(), &mut buf);
        fmt.finish(&cols, &mut buf);
        sink.write(&buf)?;
    }
    if let Some(msg) = failed {
        return Err(NvqError::AssertFailed(msg));
    }
    match (end, &script.until, script.timeout) {
        (End::Deadline, Some(_), Some(_)) => Err(script.until_missed(&format!(
            "within --timeout {}",
            args.timeout.as_deref().unwrap_or_default().trim()
        ))),
        (End::Count, Some(_), _) => Err(script.until_missed(&format!(
            "within --count {} samples",
            plan.count.unwrap_or_default()
        ))),
        _ => Ok(()),
    }
}

/// One sample's rows of the given GPUs.
fn collect_rows(
    mode: QueryMode,
    session: &Session,
    targets: &[fields::gpu::Target],
    devices: &[u32],
    count: u32,
    fields: &[usize],
    ident: bool,
) -> Vec<format::Row> {
    let list = |devices: &[u32]| match mode {
        QueryMode::Gpu => fields::gpu::collect_targets(session, targets, count, fields, ident),
        QueryMode::ComputeApps => fields::compute_apps::collect(session, devices, fields),
        QueryMode::AccountedApps => fields::accounted_apps::collect(session, devices, fields),
        QueryMode::RetiredPages => fields::retired_pages::collect(session, devices, fields),
        QueryMode::RemappedRows => fields::remapped_rows::collect(session, devices, fields),
        QueryMode::SupportedClocks => fields::supported_clocks::collect(session, devices, fields),
    };
    if mode == QueryMode::Gpu || !ident {
        return list(devices);
    }
    // The list modes' rows get their GPU's identity (Prometheus labels),
    // so that the rows of two GPUs never print the same series.
    targets
        .iter()
        .flat_map(|t| {
            let gpu = fields::gpu::ident(session, t);
            let mut rows = list(&[t.index]);
            for r in &mut rows {
                r.gpu = Some(Arc::clone(&gpu));
            }
            rows
        })
        .collect()
}

/// In a loop, each GPU is read on its own worker thread under a deadline
/// (see [`crate::deadline`]). `None` if the threads cannot be started; the
/// loop then reads the GPUs in turn, without a deadline.
fn start_workers(
    session: &Arc<Session>,
    devices: &[u32],
    mode: QueryMode,
    fields: &[usize],
    count: u32,
    ident: bool,
    interval: Duration,
) -> Option<deadline::PerGpu<Vec<format::Row>>> {
    let session = Arc::clone(session);
    let devices = devices.to_vec();
    let fields = fields.to_vec();
    let n = devices.len();
    deadline::PerGpu::start(n, deadline::limit_for(interval), move |i| {
        let session = Arc::clone(&session);
        let gpu = [devices.get(i).copied().unwrap_or(0)];
        let fields = fields.clone();
        // Looked up once, on the worker's thread, and reused every sample.
        let targets = fields::gpu::targets(&session, &gpu);
        move || collect_rows(mode, &session, &targets, &gpu, count, &fields, ident)
    })
    .ok()
}

/// The row printed for a GPU that missed a sample's deadline: `[Timeout]`
/// (NVML's TIMEOUT) in every cell that needs the driver; the fields that
/// do not (`timestamp`, `index`, `count`) keep their values, so the row
/// still says which GPU and when.
struct LateRows {
    names: Vec<&'static str>,
    count: u32,
}

impl LateRows {
    fn new(mode: QueryMode, fields: &[usize], count: u32) -> Self {
        let infos = mode.fields();
        let names = fields
            .iter()
            .map(|&i| infos.get(i).map_or("", |f| f.name))
            .collect();
        LateRows { names, count }
    }

    fn rows(&self, gpu: u32, ident: Option<Arc<format::GpuIdent>>) -> Vec<format::Row> {
        use fields::Value;
        let timestamp = fields::time::timestamp_now();
        let cells = self
            .names
            .iter()
            .map(|name| match *name {
                "timestamp" => Value::text(timestamp.clone()),
                "index" => Value::Int(i64::from(gpu)),
                "count" => Value::Int(i64::from(self.count)),
                _ => Value::err(crate::nvml::NvmlCode::TIMEOUT),
            })
            .collect();
        let mut row = format::Row::new(cells);
        row.timestamp = Some(timestamp);
        row.gpu = ident;
        vec![row]
    }
}

/// `--version` and `-L/--list-gpus`, both read through NVML.
fn run_listing(args: &Args) -> Result<(), NvqError> {
    let session = Session::open(&args.lib_source())?;
    let text = if args.version {
        fields::list::render_version(&fields::list::versions(&session))
    } else {
        let devices = select::select(&session, args.id.as_deref())?;
        fields::list::render_list(&fields::list::gpus(&session, &devices))
    };
    let mut sink = Sink::open(args.filename.as_deref())?;
    sink.write(text.as_bytes())
}
