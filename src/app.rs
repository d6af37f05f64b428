//! What nvq does with parsed arguments.

mod history;
mod hosts;
mod mig;
mod nvlink;
pub mod plan;
mod plot;
mod pods;
pub mod serve;
mod serve_answer;
mod serve_trend;
pub mod top;
mod topo;
mod vgpu;

use crate::cli::{self, Args};
use crate::output::{Sink, SinkMode};
use crate::schedule::deadline;
use crate::schedule::{self as looping, End, Flow, Schedule};
use crate::script::{self, Script, Verdict};
use crate::Personality;
use nvq_core::error::NvqError;
use nvq_core::model::{Column, ColumnId, FieldKind, GpuIdent, NvmlCode, Row, Value};
use nvq_core::nvml::Session;
use nvq_core::render::{self, FormatSpec};
use nvq_core::source::{self, QueryMode, Request};
use plan::Common;
use std::sync::Arc;
use std::time::Duration;

mod dmon;
pub mod exporters;
mod monitor;
mod pmon;
mod report;
mod run;
mod run_bundle;
mod run_torch;
mod short;
mod stat;

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
    pub fn from_args(common: &Common<'_>, mode: QueryMode, list: &str) -> Result<Self, NvqError> {
        let fields = match common.personality {
            Personality::Nvq => mode.resolve(list)?,
            Personality::NvidiaSmi => mode.resolve_as_nvidia_smi(list)?,
        };
        let format = match common.format.and_then(crate::cli::format::Format::rows) {
            Some(f) => f,
            None if common.personality == Personality::Nvq => default_format(common)?,
            None => {
                return Err(NvqError::Usage(format!(
                    "--{} needs --format=csv[,noheader][,nounits].",
                    mode.option()
                )))
            }
        };
        let script = Script::new(mode, &fields, common.script)?;
        check_summary_format(common.script.summary, Some(format))?;
        let interval = common.interval.or_else(|| {
            script
                .needs_loop()
                .then_some(script::run::UNTIL_DEFAULT_INTERVAL)
        });
        let count = loop_count(common, interval)?;
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

use nvq_core::render::FORMAT_ENV;

/// A query without `--format`, run as nvq: `$NVQ_FORMAT` if set, else an
/// aligned table on a terminal and CSV into a pipe or a `-f` file (the
/// way `ls` chooses its layout).
fn default_format(common: &Common<'_>) -> Result<FormatSpec, NvqError> {
    match std::env::var(FORMAT_ENV) {
        Ok(v) if !v.trim().is_empty() => FormatSpec::parse_lenient(v.trim()).map_err(|e| match e {
            NvqError::Usage(m) => NvqError::Usage(format!("{FORMAT_ENV}={v}: {m}")),
            e => e,
        }),
        _ if common.filename.is_none() && crate::output::terminal::stdout_is_terminal() => {
            FormatSpec::parse("table")
        }
        _ => FormatSpec::parse("csv"),
    }
}

/// `--count N`, which needs a loop.
fn loop_count(common: &Common<'_>, interval: Option<Duration>) -> Result<Option<u64>, NvqError> {
    let count = common.count;
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
    if let Some(mode) = args.help_query {
        let mut sink = Sink::stdout();
        return sink.write(render::field_help::render(mode.option(), &mode.fields()).as_bytes());
    }
    let own_hosts = match &args.command {
        Some(cli::Command::Mem(s) | cli::Command::Ps(s) | cli::Command::Busy(s)) => s.hosts.any(),
        Some(cli::Command::Wait(w)) => w.short.hosts.any(),
        _ => false,
    };
    if args.hosts.any() || own_hosts {
        if personality == Personality::NvidiaSmi {
            return Err(NvqError::UnknownOption("--hosts".into()));
        }
        let reads_nodes = match &args.command {
            Some(c) => matches!(
                c,
                cli::Command::Mem(_)
                    | cli::Command::Ps(_)
                    | cli::Command::Busy(_)
                    | cli::Command::Wait(_)
                    | cli::Command::Stat(_)
                    | cli::Command::Top(_)
            ),
            None => args.queries.len() == 1,
        };
        if !reads_nodes {
            return Err(NvqError::Usage(
                "--hosts works with mem, ps, busy, stat, wait, top, --query-gpu and --query-compute-apps."
                    .into(),
            ));
        }
    }
    if let Some(command) = &args.command {
        // The shared options, wherever they stand (see `plan`).
        let common = Common::for_command(args, command, personality)?;
        return match command {
            cli::Command::Dmon(a) => dmon::run(a, &common),
            cli::Command::Pmon(a) => pmon::run(a, &common),
            cli::Command::Topo(t) => topo::run(&common, t),
            cli::Command::Nvlink(n) => nvlink::run(&common, n),
            cli::Command::Mig(m) => mig::run(&common, m),
            cli::Command::Vgpu(v) => vgpu::run(&common, v),
            cli::Command::Serve(s) => serve::run(&common, s),
            cli::Command::Top(t) => top::run(t, &common),
            cli::Command::Plot(p) => plot::run(p),
            cli::Command::Mem(_) | cli::Command::Ps(_) | cli::Command::Busy(_) => {
                short::run(command, &common)
            }
            cli::Command::Wait(w) => short::wait(w, &common),
            cli::Command::Run(r) => run::run(r, &common),
            cli::Command::Stat(_) => stat::run(&common),
        };
    }
    let queries = &args.queries;
    // What the mode prints says which --format values it takes (-L and
    // --version take none, nor does the summary table: refused below).
    let formats = if args.version || args.list_gpus {
        None
    } else if report::wanted(args) {
        Some(crate::cli::format::Formats::Report)
    } else if !queries.is_empty() {
        Some(crate::cli::format::Formats::Rows)
    } else {
        None
    };
    let common = Common::top(args, personality, formats)?;
    if queries.len() > 1 {
        return Err(NvqError::Conflict(
            "give one --query-* option at a time (run nvq once per mode).".into(),
        ));
    }
    if queries.is_empty() && common.script.any() {
        return Err(NvqError::Usage(
            "the scripting flags (--where, --assert, --until, --summary) need a query \
             (--query-gpu=...), dmon or pmon."
                .into(),
        ));
    }
    if args.version || args.list_gpus {
        if !queries.is_empty() || args.format.is_some() || (args.version && args.list_gpus) {
            return Err(NvqError::Conflict(
                "-L/--list-gpus and --version print fixed text: each alone, without a query or --format."
                    .into(),
            ));
        }
        return run_listing(args, &common);
    }
    if report::wanted(args) {
        return report::run(args, &common);
    }
    if let Some((mode, list)) = queries.first() {
        let plan = QueryPlan::from_args(&common, *mode, list)?;
        return run_query(&common, &plan);
    }
    if args.format.is_some() {
        return Err(NvqError::Conflict(
            "--format needs something to format: a query such as --query-gpu=index,memory.used, \
             or dmon, pmon, topo, mig, -q."
                .into(),
        ));
    }
    run_summary(&common)
}

/// No query option: print nvidia-smi's summary table (again every `-l`
/// interval). In a loop every part of the table is read under the sample's
/// deadline, as the query modes' rows are; a GPU that misses it shows
/// `N/A` in its box and no processes (see `source::smi_table::Part`).
fn run_summary(common: &Common<'_>) -> Result<(), NvqError> {
    let interval = common.interval;
    let count = loop_count(common, interval)?;
    let session = Arc::new(common.session()?);
    let devices = common.gpus(&session)?;
    let mut sink = common.sink(SinkMode::Append)?;
    let colour = common.personality == Personality::Nvq
        && crate::output::terminal::stdout_colour(common.filename.is_some());
    let parts = source::smi_table::Part::count(devices.len());
    let workers = interval.and_then(|_| {
        let jobs = (0..parts)
            .map(|i| {
                let (session, devices) = (Arc::clone(&session), devices.clone());
                move || source::smi_table::Part::read(&session, &devices, i)
            })
            .collect();
        per_gpu(jobs)
    });
    struct Tables<'a> {
        session: &'a Session,
        devices: &'a [u32],
        workers: Option<deadline::PerGpu<source::smi_table::Part>>,
        colour: bool,
    }
    impl looping::Samples for Tables<'_> {
        fn sample(&mut self, tick: &looping::Tick, buf: &mut Vec<u8>) -> Result<Flow, NvqError> {
            let summary = match self.workers.as_mut() {
                Some(w) => {
                    let devices = self.devices;
                    let parts =
                        w.sample(tick.deadline, |i| source::smi_table::Part::late(devices, i));
                    source::smi_table::assemble(self.session, parts)
                }
                None => source::smi_table::collect(self.session, self.devices),
            };
            render::smi_table::render(&summary, self.colour, buf);
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
        workers,
        colour,
    };
    looping::drive(schedule, &mut sink, &mut tables).map(|_| ())
}

fn run_query(common: &Common<'_>, plan: &QueryPlan) -> Result<(), NvqError> {
    if let Some((nodes, client)) = hosts::wanted(common, plan.mode)? {
        return hosts::run_query(common, plan, nodes, client);
    }
    let mode = if plan.format.kind.replaces_file() {
        SinkMode::ReplaceEachSample
    } else {
        SinkMode::Append
    };
    // A file replaced per sample is checked (and a device, FIFO or socket
    // refused) before NVML is touched; nothing is written to it yet.
    let replaced = match mode {
        SinkMode::ReplaceEachSample => Some(common.sink(mode)?),
        SinkMode::Append => None,
    };
    let session = Arc::new(common.session()?);
    let devices = common.gpus(&session)?;
    let count = session.device_count().unwrap_or(0);
    let major = session.driver_major();
    let columns: Vec<Column> = plan.mode.columns(&plan.fields, major);
    let mut sink = match replaced {
        Some(sink) => sink,
        None => common.sink(mode)?,
    };
    let colour = crate::output::terminal::stdout_colour(common.filename.is_some());
    let mut fmt = plan.format.formatter_with(colour);
    // A history keys each GPU's series by its UUID, which the rows then carry; a list mode's --summary tells
    // rows apart by their GPU too.
    let ident = fmt.needs_gpu_ident()
        || plan.script.needs_history()
        || (plan.script.summary.is_some() && !plan.mode.row_per_gpu());
    let schedule = Schedule {
        interval: plan.interval,
        count: plan.count,
        deadline: plan.script.timeout,
    };
    let mut script = plan.script.clone();
    // In a loop each GPU is read off the main thread under the sample's
    // deadline, handle lookup included (see `crate::schedule::deadline`);
    // a one-shot query reads the GPUs in turn, handles looked up once here.
    // A process's time to full is measured against its GPU's memory, which its rows do not carry.
    let noted = script.needs_gpu_memory().then(history::Noted::default);
    let mut workers = schedule.interval.and_then(|_| {
        let mode = plan.mode;
        let req = Request {
            fields: script.read(),
            count,
            ident,
            spare: script.derived_count(),
        };
        start_workers(&session, &devices, mode, &req, noted.clone())
    });
    let mut targets: Option<Vec<source::Target>> = None;
    let late = LateRows::new(plan.mode, script.read(), count);
    let mut last: Vec<Option<Arc<GpuIdent>>> = vec![None; devices.len()];
    let mut failed = None;
    let end = looping::run_with(schedule, &columns, fmt.as_mut(), &mut sink, |tick| {
        let read = script.read();
        let rows = match workers.as_mut() {
            Some(w) => {
                let per_gpu = w.sample(tick.deadline, |i| {
                    late.rows(devices[i], tick.due_wall(), last[i].clone())
                });
                let mut rows = Vec::with_capacity(per_gpu.len());
                for (i, gpu_rows) in per_gpu.into_iter().enumerate() {
                    if let Some(g) = gpu_rows.iter().find_map(|r| r.gpu.clone()) {
                        last[i] = Some(g);
                    }
                    rows.extend(gpu_rows);
                }
                rows
            }
            None => plan.mode.collect(
                &session,
                targets.get_or_insert_with(|| source::targets(&session, &devices)),
                &Request {
                    fields: read,
                    count,
                    ident,
                    spare: script.derived_count(),
                },
            ),
        };
        let gpus = plan.mode.row_per_gpu().then_some(devices.as_slice());
        let now = tick
            .due_wall()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(f64::NAN, |d| d.as_secs_f64());
        if let Some(n) = &noted {
            history::tell(n, &mut script);
        }
        Ok(apply_script(&mut script, rows, gpus, now, &mut failed))
    })?;
    let timeout = common.timeout;
    let run = ScriptRun {
        end,
        failed,
        count: plan.count,
        timeout,
    };
    finish_script(&script, run, &columns, plan.format)
}

/// `--summary` needs a run to summarise: a Prometheus scrape has none.
fn check_summary_format(summary: bool, format: Option<FormatSpec>) -> Result<(), NvqError> {
    if summary && format.is_some_and(|f| f.kind == render::FormatKind::Prometheus) {
        return Err(NvqError::Usage(
            "--summary is not available with --format=prometheus (a scrape has no run to summarise).".into(),
        ));
    }
    Ok(())
}

/// One sample's rows through the scripting flags: the rows to print and
/// whether the loop goes on. A failed `--assert` is kept in `failed`.
fn apply_script(
    script: &mut Script,
    rows: Vec<Row>,
    gpus: Option<&[u32]>,
    now: f64,
    failed: &mut Option<String>,
) -> (Vec<Row>, Flow) {
    let (rows, verdict) = script.sample_at(now, rows, gpus);
    let flow = match verdict {
        Verdict::Continue => Flow::Continue,
        Verdict::UntilMet => Flow::Stop,
        Verdict::AssertFailed(msg) => {
            *failed = Some(msg);
            Flow::Stop
        }
    };
    (rows, flow)
}

/// How a scripted loop ended.
struct ScriptRun<'a> {
    end: End,
    failed: Option<String>,
    count: Option<u64>,
    /// `--timeout` as given.
    timeout: Option<&'a str>,
}

/// After a scripted loop: the `--summary` table (on stderr), then the exit
/// status of `--assert` and `--until`.
fn finish_script(
    script: &Script,
    run: ScriptRun<'_>,
    columns: &[Column],
    format: FormatSpec,
) -> Result<(), NvqError> {
    if run.end == End::OutputClosed {
        return Ok(());
    }
    if script.summary.is_some() {
        let cols = script::Stats::columns(columns);
        // csv and table: an empty line between the tables; json and ndjson
        // rows say what they are with their "statistic" key.
        let mut buf = match format.kind {
            render::FormatKind::Csv | render::FormatKind::Table => b"\n".to_vec(),
            _ => Vec::new(),
        };
        let mut fmt = format.formatter();
        fmt.begin(&cols, &mut buf);
        fmt.sample(&cols, &script.summary_rows(), &mut buf);
        fmt.finish(&cols, &mut buf);
        // On stderr: the data (stdout or the -f file) stays one table that
        // a CSV or JSON reader takes as it is.
        use std::io::Write;
        std::io::stderr()
            .write_all(&buf)
            .map_err(|source| NvqError::Output {
                path: "standard error".into(),
                source,
            })?;
    }
    if let Some(msg) = run.failed {
        return Err(NvqError::AssertFailed(msg));
    }
    match (run.end, &script.until, script.timeout) {
        (End::Deadline, Some(_), Some(_)) => Err(script.until_missed(&format!(
            "within --timeout {}",
            run.timeout.unwrap_or_default().trim()
        ))),
        (End::Count, Some(_), _) => Err(script.until_missed(&format!(
            "within --count {} samples",
            run.count.unwrap_or_default()
        ))),
        _ => Ok(()),
    }
}

/// In a loop, the GPUs are read on worker threads under each sample's
/// deadline (see [`crate::schedule::deadline`]). `None` if no thread can be
/// started; the loop then reads the GPUs in turn, without a deadline.
fn start_workers(
    session: &Arc<Session>,
    devices: &[u32],
    mode: QueryMode,
    req: &Request<'_>,
    noted: Option<history::Noted>,
) -> Option<deadline::PerGpu<Vec<Row>>> {
    let (count, ident, spare) = (req.count, req.ident, req.spare);
    let jobs = devices
        .iter()
        .map(|&gpu| {
            let session = Arc::clone(session);
            let fields = req.fields.to_vec();
            // The handle is looked up on a worker thread, under the
            // deadline, on the first read, and reused by the next ones.
            let mut targets = None;
            let mut noted = noted.clone();
            move || {
                let req = Request {
                    fields: &fields,
                    count,
                    ident,
                    spare,
                };
                let targets = targets.get_or_insert_with(|| source::targets(&session, &[gpu]));
                let rows = mode.collect(&session, targets, &req);
                if noted.as_ref().is_some_and(|n| n.read(&session, gpu, count)) {
                    noted = None;
                }
                rows
            }
        })
        .collect();
    per_gpu(jobs)
}

/// The one way a loop reads its GPUs: `jobs[i]` reads part `i` of a sample
/// (a GPU, or a part that needs no GPU); each sample runs them all on
/// worker threads under its deadline. `None` if no thread can be started.
fn per_gpu<T, J>(jobs: Vec<J>) -> Option<deadline::PerGpu<T>>
where
    T: Send + 'static,
    J: FnMut() -> T + Send + 'static,
{
    deadline::PerGpu::start(jobs).ok()
}

/// The row printed for a GPU that missed a sample's deadline: `[Timeout]`
/// (NVML's TIMEOUT) in every cell that needs the driver; the fields that
/// do not (`timestamp`, `index`, `count`: see [`FieldKind`]) keep their
/// values, so the row still says which GPU and when.
struct LateRows {
    /// Each field's kind and id.
    kinds: Vec<(FieldKind, ColumnId)>,
    count: u32,
}

impl LateRows {
    fn new(mode: QueryMode, fields: &[usize], count: u32) -> Self {
        let (infos, ids) = (mode.fields(), mode.ids());
        let kinds = fields
            .iter()
            .map(|&i| match (infos.get(i), ids.get(i)) {
                (Some(f), Some(&id)) => (f.kind, id),
                _ => (FieldKind::Gauge, ColumnId::Text("")),
            })
            .collect();
        LateRows { kinds, count }
    }

    /// `when`: the sample's tick, the time the GPU was asked.
    fn rows(
        &self,
        gpu: u32,
        when: std::time::SystemTime,
        ident: Option<Arc<GpuIdent>>,
    ) -> Vec<Row> {
        let cells = self
            .kinds
            .iter()
            .map(|&(kind, id)| {
                source::time::known_cell(kind, id, when, gpu, self.count)
                    .unwrap_or_else(|| Value::err(NvmlCode::TIMEOUT))
            })
            .collect();
        let mut row = Row::new(cells);
        row.timestamp = Some(source::time::format_timestamp(when));
        row.time = Some(when);
        row.gpu = ident;
        vec![row]
    }
}

/// `--version` and `-L/--list-gpus`, both read through NVML. `--version`
/// is nvidia-smi's banner as `nvidia-smi`, and starts with nvq's own
/// version as `nvq`.
fn run_listing(args: &Args, common: &Common<'_>) -> Result<(), NvqError> {
    let session = common.session()?;
    let text = if args.version {
        let versions = source::listing::versions(&session);
        match common.personality {
            Personality::NvidiaSmi => render::listing::render_version(&versions),
            Personality::Nvq => render::listing::render_nvq_version(&versions),
        }
    } else {
        let devices = common.gpus(&session)?;
        render::listing::render_list(&source::listing::gpus(&session, &devices))
    };
    let mut sink = common.sink(SinkMode::Append)?;
    sink.write(text.as_bytes())
}
