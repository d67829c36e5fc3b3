//! The one type that keeps track of requests waiting for an answer, so that each gets exactly
//! one (invariant 4).
//!
//! Every pending-request map of the main loop is a [`RequestTable`]: the editor's requests
//! forwarded to FSAC, FSAC's requests forwarded to the editor, fslens's own requests to FSAC
//! and to the editor, the running commands and the session clients' file reads. A request
//! leaves its table exactly once, and whoever takes it out answers it: [`RequestTable::complete`]
//! when its answer arrives, [`RequestTable::cancel`] when its asker gives up,
//! [`RequestTable::drop_owner`] when its asker goes away, and [`RequestTable::fail_all`],
//! which answers every request still waiting with an error when the peer that owed the answers
//! is gone. A request that was cancelled, dropped or failed is remembered (boundedly), so that
//! its answer arriving late is recognised and dropped instead of being taken for another's.
//!
//! The shape follows lsp-server's `req_queue.rs` (rust-analyzer): a map from request id to
//! what the answer is for.

use std::collections::{BTreeMap, HashSet};
use std::hash::Hash;

use crate::commands::context::{CommandKey, Origin};
use crate::lsp::message::{Message, ResponseError};

/// How many requests that were answered without their peer's answer are remembered; past this,
/// the oldest memories go all at once (a peer may never send its late answers).
const MOST_SETTLED_REQUESTS: usize = 4096;

/// Whoever waits for the answer to one request, as far as an error can reach them.
pub(super) trait Waiter<K> {
    /// Answers the request `key` with `error` (its own answer will not come); returns the
    /// message a peer must still be sent for that, if any.
    fn fail(self, key: &K, error: ResponseError) -> Option<(Origin, Message)>;
}

/// What arriving answer a table was told about.
#[derive(Debug)]
pub(super) enum Completion<W> {
    /// The request was waiting: here is its waiter, handed out this once.
    Waiting(W),
    /// The request was answered already without it (cancelled, its asker gone, or failed):
    /// the answer came late and is dropped.
    Late,
    /// No such request waits (it was never registered, or was answered already).
    Unknown,
}

struct Entry<W> {
    owner: Option<CommandKey>,
    waiter: W,
}

/// The requests of one kind that wait for an answer, by key (usually the request id on the
/// wire), each with its waiter and the command or peer request it belongs to.
pub(super) struct RequestTable<K, W> {
    pending: BTreeMap<K, Entry<W>>,
    /// Requests answered without their peer's answer, whose late answer may still arrive.
    settled: HashSet<K>,
}

impl<K, W> Default for RequestTable<K, W> {
    fn default() -> Self {
        RequestTable { pending: BTreeMap::new(), settled: HashSet::new() }
    }
}

impl<K: Ord + Hash + Clone, W> RequestTable<K, W> {
    /// Remembers that `key` waits for an answer for `waiter`, on behalf of `owner` (a command
    /// or a peer's own request; `None`: the loop itself). Returns the waiter of an earlier
    /// request under the same key, which this one replaces (its caller must answer it).
    pub(super) fn register(&mut self, key: K, owner: Option<CommandKey>, waiter: W) -> Option<W> {
        self.settled.remove(&key);
        self.pending.insert(key, Entry { owner, waiter }).map(|earlier| earlier.waiter)
    }

    /// The answer to `key` arrived.
    pub(super) fn complete(&mut self, key: &K) -> Completion<W> {
        match self.pending.remove(key) {
            Some(entry) => Completion::Waiting(entry.waiter),
            None if self.settled.remove(key) => Completion::Late,
            None => Completion::Unknown,
        }
    }

    /// The asker of `key` gives up waiting: the request's waiter, if it still waited. Its
    /// answer, should it arrive after all, completes as [`Completion::Late`].
    pub(super) fn cancel(&mut self, key: &K) -> Option<W> {
        let entry = self.pending.remove(key)?;
        self.settle([key.clone()]);
        Some(entry.waiter)
    }

    /// Takes out every request owned by a command or request of `origin` (a session client
    /// that left), in key order; their late answers complete as [`Completion::Late`].
    pub(super) fn drop_owner(&mut self, origin: &Origin) -> Vec<(K, W)> {
        self.take_where(|owner| owner.is_some_and(|(owner, _)| owner == origin))
    }

    /// Takes out every request owned by the command (or peer request) `owner`, in key order;
    /// their late answers complete as [`Completion::Late`].
    pub(super) fn drop_owned_by(&mut self, owner: &CommandKey) -> Vec<(K, W)> {
        self.take_where(|candidate| candidate == Some(owner))
    }

    /// Takes out every request, forgetting them (the session ends: nobody is answered).
    pub(super) fn drain(&mut self) -> Vec<(K, W)> {
        self.settled.clear();
        std::mem::take(&mut self.pending).into_iter().map(|(key, entry)| (key, entry.waiter)).collect()
    }

    /// Whether `key` still waits for an answer.
    pub(super) fn contains(&self, key: &K) -> bool {
        self.pending.contains_key(key)
    }

    /// Whether an answer to `key` may still arrive: it waits, or it was answered without it.
    pub(super) fn is_owed(&self, key: &K) -> bool {
        self.pending.contains_key(key) || self.settled.contains(key)
    }

    pub(super) fn len(&self) -> usize {
        self.pending.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    fn take_where(&mut self, owned: impl Fn(Option<&CommandKey>) -> bool) -> Vec<(K, W)> {
        let keys: Vec<K> =
            self.pending.iter().filter(|(_, entry)| owned(entry.owner.as_ref())).map(|(key, _)| key.clone()).collect();
        self.settle(keys.iter().cloned());
        keys.into_iter().filter_map(|key| self.pending.remove(&key).map(|entry| (key, entry.waiter))).collect()
    }

    fn settle(&mut self, keys: impl IntoIterator<Item = K>) {
        if self.settled.len() > MOST_SETTLED_REQUESTS {
            self.settled.clear();
        }
        self.settled.extend(keys);
    }
}

impl<K: Ord + Hash + Clone, W: Waiter<K>> RequestTable<K, W> {
    /// The peer that owed every answer is gone: answers each waiting request, in key order,
    /// with the error `reason` gives for it. Returns the messages peers must still be sent.
    pub(super) fn fail_all(&mut self, reason: impl Fn(&W) -> ResponseError) -> Vec<(Origin, Message)> {
        let pending = std::mem::take(&mut self.pending);
        self.settle(pending.keys().cloned());
        pending
            .into_iter()
            .filter_map(|(key, entry)| {
                let error = reason(&entry.waiter);
                entry.waiter.fail(&key, error)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::collections::BTreeMap;
    use std::rc::Rc;

    use proptest::prelude::*;

    use super::*;
    use crate::lsp::message::{RequestId, error_codes};

    /// How each registered request (by its registration number) was answered.
    type Ledger = Rc<RefCell<BTreeMap<u32, Vec<&'static str>>>>;

    /// A waiter that writes down every answer it gets.
    #[derive(Debug)]
    struct Probe {
        registration: u32,
        ledger: Ledger,
    }

    impl Probe {
        fn answer(self, how: &'static str) {
            self.ledger.borrow_mut().entry(self.registration).or_default().push(how);
        }
    }

    impl Waiter<u32> for Probe {
        fn fail(self, key: &u32, error: ResponseError) -> Option<(Origin, Message)> {
            let message = Message::response_error(RequestId::Number(i64::from(*key)), &error);
            self.answer("failed");
            Some((Origin::Editor, message))
        }
    }

    fn owner(client: u64, id: i64) -> Option<CommandKey> {
        Some((Origin::Client(client), RequestId::Number(id)))
    }

    fn failure(_: &Probe) -> ResponseError {
        ResponseError::new(error_codes::REQUEST_FAILED, "FSAC exited")
    }

    struct Fixture {
        table: RequestTable<u32, Probe>,
        ledger: Ledger,
        registrations: u32,
    }

    impl Fixture {
        fn new() -> Self {
            Fixture { table: RequestTable::default(), ledger: Ledger::default(), registrations: 0 }
        }

        fn register(&mut self, key: u32, owner: Option<CommandKey>) {
            self.registrations += 1;
            let probe = Probe { registration: self.registrations, ledger: self.ledger.clone() };
            if let Some(displaced) = self.table.register(key, owner, probe) {
                displaced.answer("displaced");
            }
        }

        /// Every registration was answered exactly once.
        fn assert_each_answered_once(&self) {
            let ledger = self.ledger.borrow();
            for registration in 1..=self.registrations {
                let answers = ledger.get(&registration).cloned().unwrap_or_default();
                assert_eq!(answers.len(), 1, "registration {registration} was answered {answers:?}");
            }
        }
    }

    #[test]
    fn each_way_out_hands_a_request_out_once_and_late_answers_are_told_apart() {
        let mut fixture = Fixture::new();
        for key in 1..=6 {
            fixture.register(key, if key == 4 || key == 5 { owner(7, 40) } else { owner(8, i64::from(key)) });
        }
        // An answer arrives.
        match fixture.table.complete(&2) {
            Completion::Waiting(probe) => probe.answer("answered"),
            other => panic!("2 was waiting: {other:?}"),
        }
        // The asker of 3 gives up (its answer is the cancellation).
        fixture.table.cancel(&3).expect("3 was waiting").answer("cancelled");
        assert!(fixture.table.cancel(&3).is_none(), "a request is cancelled once");
        // Client 7 leaves: its requests go with it.
        let dropped = fixture.table.drop_owner(&Origin::Client(7));
        assert_eq!(dropped.iter().map(|(key, _)| *key).collect::<Vec<_>>(), vec![4, 5]);
        dropped.into_iter().for_each(|(_, probe)| probe.answer("dropped"));
        // The command (8, 6) ends: what it still waited for goes with it.
        let owned = fixture.table.drop_owned_by(&(Origin::Client(8), RequestId::Number(6)));
        owned.into_iter().for_each(|(_, probe)| probe.answer("its command ended"));
        // The peer that owed the rest is gone: everything still waiting fails, in key order.
        let messages = fixture.table.fail_all(failure);
        let failed_ids: Vec<serde_json::Value> =
            messages.iter().map(|(_, message)| message.to_value().unwrap()["id"].clone()).collect();
        assert_eq!(failed_ids, vec![serde_json::json!(1)]);
        assert!(fixture.table.is_empty());
        assert!(fixture.table.fail_all(failure).is_empty(), "nothing is failed twice");
        fixture.assert_each_answered_once();

        // Answers arriving now: late for what was answered without them, unknown otherwise.
        for key in [1, 3, 4, 5, 6] {
            assert!(fixture.table.is_owed(&key));
            assert!(matches!(fixture.table.complete(&key), Completion::Late), "{key}");
            assert!(matches!(fixture.table.complete(&key), Completion::Unknown), "{key} is late once");
        }
        assert!(matches!(fixture.table.complete(&2), Completion::Unknown), "2 was answered already");
        assert!(matches!(fixture.table.complete(&99), Completion::Unknown));
        fixture.assert_each_answered_once();
    }

    #[test]
    fn a_key_registered_again_waits_again_and_a_displaced_waiter_is_handed_back() {
        let mut fixture = Fixture::new();
        fixture.register(1, None);
        fixture.table.fail_all(failure);
        fixture.register(1, None);
        match fixture.table.complete(&1) {
            Completion::Waiting(probe) => probe.answer("answered"),
            other => panic!("a new request under an old id waits, it is not late: {other:?}"),
        }
        fixture.register(2, None);
        fixture.register(2, None);
        assert_eq!(fixture.table.len(), 1);
        fixture.table.fail_all(failure);
        fixture.assert_each_answered_once();
        assert_eq!(fixture.ledger.borrow()[&3], vec!["displaced"]);
    }

    #[test]
    fn the_memory_of_settled_requests_is_bounded() {
        let mut table: RequestTable<u32, ()> = RequestTable::default();
        for key in 0..(3 * MOST_SETTLED_REQUESTS as u32) {
            table.register(key, None, ());
            table.cancel(&key);
        }
        assert!(table.settled.len() <= MOST_SETTLED_REQUESTS + 1);
        assert!(table.is_empty());
    }

    #[derive(Debug, Clone)]
    enum Step {
        Register { key: u32, client: u64 },
        Answer { key: u32 },
        Cancel { key: u32 },
        ClientLeaves { client: u64 },
        CommandEnds { client: u64, key: u32 },
        PeerGone,
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            3 => (0u32..6, 0u64..3).prop_map(|(key, client)| Step::Register { key, client }),
            2 => (0u32..8).prop_map(|key| Step::Answer { key }),
            1 => (0u32..8).prop_map(|key| Step::Cancel { key }),
            1 => (0u64..3).prop_map(|client| Step::ClientLeaves { client }),
            1 => (0u64..3, 0u32..6).prop_map(|(client, key)| Step::CommandEnds { client, key }),
            1 => Just(Step::PeerGone),
        ]
    }

    proptest! {
        /// Under any sequence of registrations, answers (also late and duplicate ones),
        /// cancellations, departures and failures, every registered request is answered
        /// exactly once by the end, and an answer is late exactly when its request was answered
        /// without it (and not registered again since).
        #[test]
        fn every_registered_request_is_answered_exactly_once(steps in proptest::collection::vec(step(), 0..60)) {
            let mut fixture = Fixture::new();
            // The model: who each waiting key belongs to, and the keys answered without their answer.
            let mut waiting: BTreeMap<u32, u64> = BTreeMap::new();
            let mut settled: std::collections::BTreeSet<u32> = Default::default();
            for step in steps {
                match step {
                    // The owner is the request itself, as for a session client's forwarded request.
                    Step::Register { key, client } => {
                        fixture.register(key, owner(client, i64::from(key)));
                        waiting.insert(key, client);
                        settled.remove(&key);
                    }
                    Step::Answer { key } => match fixture.table.complete(&key) {
                        Completion::Waiting(probe) => {
                            prop_assert!(waiting.remove(&key).is_some());
                            probe.answer("answered");
                        }
                        Completion::Late => prop_assert!(settled.remove(&key), "{key} is not late"),
                        Completion::Unknown => prop_assert!(!waiting.contains_key(&key) && !settled.contains(&key)),
                    },
                    Step::Cancel { key } => {
                        let was_waiting = waiting.remove(&key).is_some();
                        match fixture.table.cancel(&key) {
                            Some(probe) => {
                                prop_assert!(was_waiting);
                                probe.answer("cancelled");
                                settled.insert(key);
                            }
                            None => prop_assert!(!was_waiting),
                        }
                    }
                    Step::ClientLeaves { client } => {
                        for (key, probe) in fixture.table.drop_owner(&Origin::Client(client)) {
                            prop_assert_eq!(waiting.remove(&key), Some(client));
                            settled.insert(key);
                            probe.answer("dropped");
                        }
                        prop_assert!(waiting.values().all(|owner| *owner != client));
                    }
                    Step::CommandEnds { client, key } => {
                        let ended = (Origin::Client(client), RequestId::Number(i64::from(key)));
                        for (dropped, probe) in fixture.table.drop_owned_by(&ended) {
                            prop_assert_eq!((dropped, waiting.remove(&dropped)), (key, Some(client)));
                            settled.insert(dropped);
                            probe.answer("dropped");
                        }
                    }
                    Step::PeerGone => {
                        fixture.table.fail_all(failure);
                        settled.extend(std::mem::take(&mut waiting).into_keys());
                    }
                }
                // Nothing is ever answered twice along the way.
                let ledger = fixture.ledger.borrow();
                prop_assert!(ledger.values().all(|answers| answers.len() == 1), "{ledger:?}");
            }
            fixture.table.fail_all(failure);
            fixture.assert_each_answered_once();
        }
    }
}
