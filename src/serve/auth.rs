//! HTTP basic authentication against bcrypt hashes (`basic_auth_users`).
//!
//! bcrypt is slow on purpose (tens of milliseconds a check), so checks run
//! on blocking threads, at most [`MAX_CHECKS`] at once, and a pair that
//! passed is remembered (at most [`CACHE`] pairs) so that a scraper's
//! every request does not pay for it again. An unknown user is checked
//! against a dummy hash, so that the answer takes as long as for a known
//! one.

use base64::Engine;
use hyper::header::HeaderValue;
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::Semaphore;

/// bcrypt checks running at once.
pub const MAX_CHECKS: usize = 2;
/// Remembered (user, password) pairs that passed.
pub const CACHE: usize = 64;

/// The hash checked for a user who does not exist (cost 10, as the usual
/// hashes; of "nvq: no such user", which is never accepted: see `allows`).
const DUMMY: &str = "$2b$10$r1mahWVyTc0dtWoAYi2hn./rp7/uGl8ZkJDPtdz0DmtRjo5ocDdXK";

pub struct Checker {
    users: Arc<Vec<(String, String)>>,
    passed: Mutex<Vec<(String, String)>>,
    checks: Arc<Semaphore>,
}

impl Checker {
    pub fn new(users: Vec<(String, String)>) -> Self {
        Checker {
            users: Arc::new(users),
            passed: Mutex::new(Vec::new()),
            checks: Arc::new(Semaphore::new(MAX_CHECKS)),
        }
    }

    /// May a request with this `Authorization` header in? Always, when
    /// there are no users.
    pub async fn allows(&self, header: Option<&HeaderValue>) -> bool {
        if self.users.is_empty() {
            return true;
        }
        let Some((user, password)) = header.and_then(credentials) else {
            return false;
        };
        let pair = (user, password);
        if self.lock().contains(&pair) {
            return true;
        }
        let Ok(_permit) = self.checks.acquire().await else {
            return false;
        };
        let users = Arc::clone(&self.users);
        let (user, password) = pair.clone();
        let ok = tokio::task::spawn_blocking(move || {
            let hash = users
                .iter()
                .find(|(u, _)| *u == user)
                .map_or(DUMMY, |(_, h)| h.as_str());
            let ok = bcrypt::verify(&password, hash).unwrap_or(false);
            ok && hash != DUMMY
        })
        .await
        .unwrap_or(false);
        if ok {
            let mut passed = self.lock();
            if passed.len() >= CACHE {
                passed.clear();
            }
            passed.push(pair);
        }
        ok
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(String, String)>> {
        self.passed.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// `Basic base64(user:password)` → (user, password).
fn credentials(header: &HeaderValue) -> Option<(String, String)> {
    let value = header.to_str().ok()?;
    let (scheme, encoded) = value.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let (user, password) = text.split_once(':')?;
    Some((user.to_string(), password.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_basic_credentials() {
        let h = HeaderValue::from_static("Basic YWxpY2U6cDpw");
        assert_eq!(credentials(&h), Some(("alice".into(), "p:p".into())));
        assert_eq!(credentials(&HeaderValue::from_static("Bearer xyz")), None);
        assert_eq!(credentials(&HeaderValue::from_static("Basic !!!")), None);
        assert!(bcrypt::verify("x", DUMMY).is_ok());
    }

    #[test]
    fn checks_passwords() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let hash = bcrypt::hash("secret", 4).unwrap();
        let c = Checker::new(vec![("alice".into(), hash)]);
        let basic = |s: &str| {
            let v = format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(s)
            );
            HeaderValue::from_str(&v).unwrap()
        };
        rt.block_on(async {
            assert!(c.allows(Some(&basic("alice:secret"))).await);
            assert!(c.allows(Some(&basic("alice:secret"))).await, "remembered");
            assert!(!c.allows(Some(&basic("alice:wrong"))).await);
            assert!(!c.allows(Some(&basic("bob:secret"))).await);
            assert!(!c.allows(None).await);
            assert!(Checker::new(Vec::new()).allows(None).await);
        });
    }
}
