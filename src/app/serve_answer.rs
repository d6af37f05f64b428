//! `nvq serve --answer=MODE:FIELDS`: one `/api/v1/query` answer on
//! stdout, without listening. It is what nvq runs on an `ssh://` node
//! (`hosts::ssh`): the same query, read the same way (`serve::api`, each
//! GPU on its own lane under the deadline, a late GPU named in the
//! answer), in the same wire form, so `--hosts` decodes one form whichever
//! way a node is reached. Hidden from `--help`: it is a protocol, not a
//! view.

use super::plan::Common;
use crate::error::NvqError;
use crate::serve::api::{self, Api};
use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The longest `--answer-within` taken, in milliseconds.
const MAX_WITHIN_MS: u64 = 60_000;

/// Print the answer to `spec` (`query-gpu:index,memory.used`) within
/// `within_ms` milliseconds.
pub fn run(common: &Common<'_>, spec: &str, within_ms: u64) -> Result<(), NvqError> {
    let deadline = Instant::now() + Duration::from_millis(within_ms.clamp(1, MAX_WITHIN_MS));
    let (mode, fields) = spec.split_once(':').ok_or_else(|| {
        NvqError::Usage("--answer needs MODE:FIELDS, e.g. query-gpu:index,memory.used.".into())
    })?;
    if fields.contains('&') {
        return Err(NvqError::Usage("--answer: a field name holds no &.".into()));
    }
    let query = api::parse(&format!("mode={mode}&fields={fields}"))
        .map_err(|why| NvqError::Usage(format!("--answer: {why}")))?;
    let session = Arc::new(common.session()?);
    let devices = common.gpus(&session)?;
    let count = session.device_count().unwrap_or(0);
    let api = Api::new(session, devices, count);
    let gone =
        || NvqError::Hosts("--answer: the thread that reads the GPUs could not start".into());
    let body = api
        .ask(query, deadline)
        .map_err(|_| gone())?
        .blocking_recv()
        .map_err(|_| gone())?;
    let mut out = std::io::stdout().lock();
    out.write_all(&body)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
        .map_err(|source| NvqError::Output {
            path: "stdout".into(),
            source,
        })
}
