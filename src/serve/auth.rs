//! HTTP basic authentication against bcrypt hashes (`basic_auth_users`).
//!
//! bcrypt is slow on purpose (tens of milliseconds a check), so a flood of
//! wrong passwords must not keep a scraper out:
//! - checks run on blocking threads, at most [`MAX_CHECKS`] at once (a
//!   check's slot is held until its thread is done, also when the client
//!   has gone);
//! - a request waits for a slot only while its scrape timeout allows a
//!   check to finish in it; then it is answered 503 at once. The newest
//!   waiting request gets the next free slot (a burst queued before a
//!   scraper's request does not delay it), and at most [`MAX_WAITING`] wait:
//!   beyond that the oldest gives up;
//! - a pair that passed is remembered, at most [`CACHE`] of them, as an
//!   HMAC-SHA-256 of user and password under a key drawn at start (never the
//!   password itself), so that a scraper's later requests pay nothing;
//! - every failed check costs what one check of the dearest configured
//!   hash costs ([`Pad`]), so that a 401's time tells neither whether the
//!   name exists nor which user it is: an unknown name is checked against a
//!   dummy hash of the dearest cost, and a wrong password of a cheaper user
//!   is followed by dummy checks that make up the difference;
//! - a hash whose check would take more than [`MAX_CHECK_TIME`] here is
//!   refused when the file is read ([`check_hash`]): it could never be
//!   checked within a scrape's timeout.

use base64::Engine;
use hyper::header::HeaderValue;
use ring::hmac;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// bcrypt checks running at once.
pub const MAX_CHECKS: usize = 2;
/// Requests waiting for a check at once.
pub const MAX_WAITING: usize = 64;
/// Remembered (user, password) pairs that passed.
pub const CACHE: usize = 64;
/// The longest one check of a configured hash may take on this machine:
/// half of the default scrape timeout (10 s).
pub const MAX_CHECK_TIME: Duration = Duration::from_secs(5);

/// How long one bcrypt round (cost 0, 2⁰ expansions) takes here, measured
/// once: the fastest of three checks at cost 6, divided by 2⁶.
fn round_time() -> Duration {
    static ROUND: OnceLock<Duration> = OnceLock::new();
    *ROUND.get_or_init(|| {
        let Ok(h) = bcrypt::hash_with_salt("nvq", 6, [7u8; 16]) else {
            return Duration::from_micros(50);
        };
        let hash = h.format_for_version(bcrypt::Version::TwoB);
        let best = (0..3)
            .map(|_| {
                let t = Instant::now();
                let _ = bcrypt::verify("nvq", &hash);
                t.elapsed()
            })
            .min()
            .unwrap_or_default();
        best / 64
    })
}

/// About how long a check at `cost` takes here.
pub fn check_time(cost: u32) -> Duration {
    round_time().saturating_mul(1u32.checked_shl(cost).unwrap_or(u32::MAX))
}

/// Can `hash` be used: a bcrypt hash whose check takes at most
/// [`MAX_CHECK_TIME`] here? The reason when not (without the hash).
pub fn check_hash(hash: &str) -> Result<(), String> {
    let parts: bcrypt::HashParts = hash
        .parse()
        .map_err(|_| "a basic_auth_users hash that is not a bcrypt hash.".to_string())?;
    // bcrypt decodes the salt and digest only when it checks: try them at
    // the lowest cost, so that a hash that could never match is refused now.
    let body = hash.rsplit('$').next().unwrap_or_default();
    if bcrypt::verify("", &format!("$2b$04${body}")).is_err() {
        return Err("a basic_auth_users hash that is not a bcrypt hash.".to_string());
    }
    let cost = parts.get_cost();
    let time = check_time(cost);
    if !(4..=31).contains(&cost) || time > MAX_CHECK_TIME {
        let most = (4..=31u32)
            .take_while(|c| check_time(*c) <= MAX_CHECK_TIME)
            .last()
            .unwrap_or(4);
        return Err(format!(
            "a basic_auth_users hash of bcrypt cost {cost}, which takes about {:.1} s a check here, more than \
             the {} s nvq allows (half the default scrape timeout); hash the password again with a cost of at \
             most {most}.",
            time.as_secs_f64(),
            MAX_CHECK_TIME.as_secs()
        ));
    }
    Ok(())
}

/// What [`Checker::allows`] says about a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Allowed,
    /// No, wrong or unknown credentials: 401.
    Refused,
    /// No check could finish within the request's timeout: 503.
    Busy,
}

/// What a failed check is padded with, so that every failure costs 2^`dearest`
/// bcrypt rounds, as one check of the dearest configured hash: dummy hashes
/// (one salt and digest drawn at start, under any cost), which no password
/// matches and which take exactly their cost to check.
struct Pad {
    /// The salt and digest of a dummy hash (what follows `$2b$NN$`).
    body: String,
    /// The dearest configured cost.
    dearest: u32,
}

impl Pad {
    fn new(users: &[(String, String)]) -> Pad {
        let rng = ring::rand::SystemRandom::new();
        let mut seed = [0u8; 32];
        let _ = ring::rand::SecureRandom::fill(&rng, &mut seed);
        let (password, salt) = seed.split_at(16);
        let password: String = password.iter().map(|b| format!("{b:02x}")).collect();
        let salt: [u8; 16] = salt.try_into().unwrap_or([7; 16]);
        let body = bcrypt::hash_with_salt(password, 4, salt)
            .map(|h| h.format_for_version(bcrypt::Version::TwoB))
            .ok()
            .and_then(|h| h.rsplit('$').next().map(str::to_string))
            .unwrap_or_default();
        let dearest = users.iter().map(|(_, h)| cost_of(h)).max().unwrap_or(4);
        Pad { body, dearest }
    }

    /// Check `password` against a dummy hash of `cost`: never a match.
    fn check(&self, password: &str, cost: u32) {
        let _ = bcrypt::verify(password, &format!("$2b${cost:02}${}", self.body));
    }

    /// A failed check of a hash of `cost`: check dummies of costs `cost`,
    /// `cost + 1`, ..., `dearest - 1`, which take 2^dearest − 2^cost rounds,
    /// what the dearest check costs more.
    fn after_failure(&self, password: &str, cost: u32) {
        for c in cost..self.dearest {
            self.check(password, c);
        }
    }
}

/// The bcrypt cost of a hash (31, the dearest, if it has none).
fn cost_of(hash: &str) -> u32 {
    hash.parse::<bcrypt::HashParts>()
        .map_or(31, |p| p.get_cost())
}

pub struct Checker {
    users: Arc<Vec<(String, String)>>,
    pad: Arc<Pad>,
    /// `None` where no random key could be drawn: nothing is remembered.
    key: Option<hmac::Key>,
    passed: Mutex<VecDeque<[u8; 32]>>,
    gate: Arc<Gate>,
}

impl Checker {
    pub fn new(users: Vec<(String, String)>) -> Self {
        let rng = ring::rand::SystemRandom::new();
        Checker {
            pad: Arc::new(Pad::new(&users)),
            users: Arc::new(users),
            key: hmac::Key::generate(hmac::HMAC_SHA256, &rng).ok(),
            passed: Mutex::new(VecDeque::new()),
            gate: Arc::new(Gate {
                state: Mutex::new(GateState {
                    free: MAX_CHECKS,
                    waiting: VecDeque::new(),
                }),
            }),
        }
    }

    /// May a request with this `Authorization` header in? Always, when
    /// there are no users. `deadline`: when the request's answer is due.
    pub async fn allows(&self, header: Option<&HeaderValue>, deadline: Instant) -> Verdict {
        if self.users.is_empty() {
            return Verdict::Allowed;
        }
        let Some((user, password)) = header.and_then(credentials) else {
            return Verdict::Refused;
        };
        let tag = self.tag(&user, &password);
        if tag.is_some_and(|t| self.lock().contains(&t)) {
            return Verdict::Allowed;
        }
        let known = self.users.iter().position(|(u, _)| *u == user);
        // Any failure costs the dearest check: room for it, twice its
        // measured time (a loaded machine checks slower than it measured
        // at start).
        let room = check_time(self.pad.dearest).saturating_mul(2);
        let wait_until = deadline.checked_sub(room).unwrap_or_else(Instant::now);
        let Some(slot) = Gate::acquire(&self.gate, wait_until).await else {
            return Verdict::Busy;
        };
        let (users, pad) = (Arc::clone(&self.users), Arc::clone(&self.pad));
        let ok = tokio::task::spawn_blocking(move || {
            let _slot = slot;
            match known.and_then(|i| users.get(i)) {
                Some((_, hash)) => {
                    let ok = bcrypt::verify(&password, hash).unwrap_or(false);
                    if !ok {
                        pad.after_failure(&password, cost_of(hash));
                    }
                    ok
                }
                // An unknown name: the dearest check, of a dummy.
                None => {
                    pad.check(&password, pad.dearest);
                    false
                }
            }
        })
        .await
        .unwrap_or(false);
        if !(ok && known.is_some()) {
            return Verdict::Refused;
        }
        if let Some(t) = tag {
            let mut passed = self.lock();
            if !passed.contains(&t) {
                if passed.len() >= CACHE {
                    passed.pop_front();
                }
                passed.push_back(t);
            }
        }
        Verdict::Allowed
    }

    /// The remembered form of a pair: HMAC-SHA-256 of `user`, NUL, `password`.
    fn tag(&self, user: &str, password: &str) -> Option<[u8; 32]> {
        let key = self.key.as_ref()?;
        let mut ctx = hmac::Context::with_key(key);
        ctx.update(user.as_bytes());
        ctx.update(&[0]);
        ctx.update(password.as_bytes());
        ctx.sign().as_ref().try_into().ok()
    }

    fn lock(&self) -> MutexGuard<'_, VecDeque<[u8; 32]>> {
        self.passed.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// At most [`MAX_CHECKS`] checks at once; the newest waiter is served first.
struct Gate {
    state: Mutex<GateState>,
}

struct GateState {
    free: usize,
    waiting: VecDeque<oneshot::Sender<Slot>>,
}

/// The right to run one check; handed to a waiter, or freed, on drop.
struct Slot {
    gate: Arc<Gate>,
    armed: bool,
}

impl Drop for Slot {
    fn drop(&mut self) {
        if self.armed {
            Gate::release(&self.gate);
        }
    }
}

impl Gate {
    fn lock(&self) -> MutexGuard<'_, GateState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A slot, waiting until `until` at most.
    async fn acquire(gate: &Arc<Gate>, until: Instant) -> Option<Slot> {
        let rx = {
            let mut st = gate.lock();
            if st.free > 0 {
                st.free -= 1;
                return Some(Slot {
                    gate: Arc::clone(gate),
                    armed: true,
                });
            }
            if Instant::now() >= until {
                return None;
            }
            if st.waiting.len() >= MAX_WAITING {
                // The oldest waiter gives up (its receiver gets an error).
                st.waiting.pop_front();
            }
            let (tx, rx) = oneshot::channel();
            st.waiting.push_back(tx);
            rx
        };
        // A slot sent just as the wait ends is dropped with the receiver,
        // which hands it on.
        match tokio::time::timeout_at(until.into(), rx).await {
            Ok(Ok(slot)) => Some(slot),
            _ => None,
        }
    }

    /// Give a finished check's slot to the newest waiter still waiting.
    fn release(gate: &Arc<Gate>) {
        let mut st = gate.lock();
        while let Some(tx) = st.waiting.pop_back() {
            let slot = Slot {
                gate: Arc::clone(gate),
                armed: true,
            };
            match tx.send(slot) {
                Ok(()) => return,
                Err(mut unsent) => unsent.armed = false,
            }
        }
        st.free += 1;
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

    /// What `c` says to the basic credentials `pair` (`name:password`).
    async fn verdict(c: &Checker, pair: &str) -> Verdict {
        c.allows(Some(&basic(pair)), later()).await
    }

    fn basic(s: &str) -> HeaderValue {
        let v = format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(s)
        );
        HeaderValue::from_str(&v).unwrap()
    }

    fn later() -> Instant {
        Instant::now() + Duration::from_secs(10)
    }

    #[test]
    fn reads_basic_credentials() {
        let h = HeaderValue::from_static("Basic YWxpY2U6cDpw");
        assert_eq!(credentials(&h), Some(("alice".into(), "p:p".into())));
        assert_eq!(credentials(&HeaderValue::from_static("Bearer xyz")), None);
        assert_eq!(credentials(&HeaderValue::from_static("Basic !!!")), None);
    }

    #[test]
    fn checks_passwords_and_remembers_no_password() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let hash = bcrypt::hash("secret", 4).unwrap();
        let c = Checker::new(vec![("alice".into(), hash)]);
        rt.block_on(async {
            assert_eq!(verdict(&c, "alice:secret").await, Verdict::Allowed);
            assert_eq!(verdict(&c, "alice:secret").await, Verdict::Allowed);
            assert_eq!(verdict(&c, "alice:wrong").await, Verdict::Refused);
            // The right password under an unknown name is refused.
            assert_eq!(verdict(&c, "bob:secret").await, Verdict::Refused);
            assert_eq!(c.allows(None, later()).await, Verdict::Refused);
            assert_eq!(
                Checker::new(Vec::new()).allows(None, later()).await,
                Verdict::Allowed
            );
        });
        let passed = c.lock();
        assert_eq!(passed.len(), 1, "one pair remembered");
        assert!(!passed[0].windows(6).any(|w| w == b"secret"));
        assert_eq!(Some(passed[0]), c.tag("alice", "secret"));
        assert_ne!(c.tag("alice", "secret"), c.tag("alice", "secreT"));
    }

    #[test]
    fn the_newest_waiter_gets_the_next_slot_and_a_late_one_gives_up() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let gate = Arc::new(Gate {
            state: Mutex::new(GateState {
                free: 1,
                waiting: VecDeque::new(),
            }),
        });
        rt.block_on(async {
            let first = Gate::acquire(&gate, later()).await.unwrap();
            // Nothing free and no time left: no wait at all.
            assert!(Gate::acquire(&gate, Instant::now()).await.is_none());
            let old = tokio::spawn({
                let g = Arc::clone(&gate);
                async move { Gate::acquire(&g, later()).await.is_some() }
            });
            tokio::task::yield_now().await;
            let new = tokio::spawn({
                let g = Arc::clone(&gate);
                async move { Gate::acquire(&g, later()).await.map(drop).is_some() }
            });
            tokio::task::yield_now().await;
            drop(first);
            assert!(new.await.unwrap(), "the newest waiter is served first");
            assert!(old.await.unwrap(), "then the older one");
            let short = Instant::now() + Duration::from_millis(50);
            let held = Gate::acquire(&gate, later()).await.unwrap();
            assert!(
                Gate::acquire(&gate, short).await.is_none(),
                "gave up at its time"
            );
            drop(held);
            assert_eq!(gate.lock().free, 1, "every slot came back");
        });
    }

    #[test]
    fn failures_are_padded_to_the_dearest_cost_whatever_the_order() {
        let cheap = bcrypt::hash("a", 4).unwrap();
        let dear = bcrypt::hash("b", 6).unwrap();
        for users in [
            vec![
                ("c".to_string(), cheap.clone()),
                ("d".to_string(), dear.clone()),
            ],
            vec![
                ("d".to_string(), dear.clone()),
                ("c".to_string(), cheap.clone()),
            ],
        ] {
            let pad = Pad::new(&users);
            assert_eq!(pad.dearest, 6);
            // A dummy of any cost is a hash bcrypt checks, and no match.
            let dummy = format!("$2b$05${}", pad.body);
            assert_eq!(bcrypt::verify("a", &dummy).ok(), Some(false));
        }
        assert_eq!(cost_of(&dear), 6);
        assert_eq!(cost_of("plain"), 31);
    }

    #[test]
    fn costs_too_slow_to_check_are_refused() {
        assert!(check_hash("plain-text").is_err());
        // The right shape, but a salt and digest bcrypt cannot decode.
        assert!(check_hash(&format!("$2b$10${}", "!".repeat(53))).is_err());
        let ok = bcrypt::hash("x", 4).unwrap();
        assert!(check_hash(&ok).is_ok());
        let slow = "$2b$31$r1mahWVyTc0dtWoAYi2hn./rp7/uGl8ZkJDPtdz0DmtRjo5ocDdXK";
        let why = check_hash(slow).unwrap_err();
        assert!(why.contains("cost 31") && why.contains("at most"), "{why}");
        assert!(!why.contains("r1mah"), "{why}");
    }
}
