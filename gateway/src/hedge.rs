//! [`first_answer`]: one call to a group of replicas, with failover and a hedge.
//!
//! The replicas are tried in the order the group chose ([`Step`]s). The first is asked; when
//! it fails, the next is asked at once (failover), until one answers or none is left. When
//! the one asked has not answered within its patience (its recent p95), the next one that is
//! up is asked beside it (a hedge, once per call): the first answer wins and the other call
//! is dropped, which closes its connection.

use std::future::Future;
use std::time::Duration;

use tokio::task::JoinSet;
use tokio::time::Instant;

/// A replica's place in a call's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Step {
    /// How long its answer is waited for before a hedge goes to the next replica.
    pub(crate) patience: Duration,
    /// Whether a hedge may go to it (a replica found down is asked only on failover).
    pub(crate) up: bool,
}

/// The first answer of the calls `ask(i)` makes to the replicas of `steps`, in order, with
/// failover and one hedge (see the module docs); when all fail, each one's failure.
pub(crate) async fn first_answer<A, F, Fut>(steps: &[Step], mut ask: F) -> Result<A, Vec<String>>
where
    A: Send + 'static,
    F: FnMut(usize) -> Fut,
    Fut: Future<Output = Result<A, String>> + Send + 'static,
{
    let mut running = JoinSet::new();
    let mut failures = Vec::new();
    let mut next = 0;
    let mut hedge_at: Option<Instant> = None;
    let mut hedged = false;
    loop {
        if running.is_empty() {
            if next >= steps.len() {
                return Err(failures);
            }
            // Failover (or the first call): the next replica, at once.
            running.spawn(ask(next));
            hedge_at = hedge_after(steps, next, hedged);
            next += 1;
        }
        let hedge = async {
            match hedge_at {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            joined = running.join_next() => match joined {
                Some(Ok(Ok(answer))) => return Ok(answer),
                Some(Ok(Err(failure))) => failures.push(failure),
                Some(Err(error)) => failures.push(format!("a call was lost: {error}")),
                None => {}
            },
            () = hedge => {
                running.spawn(ask(next));
                hedged = true;
                hedge_at = None;
                next += 1;
            }
        }
    }
}

/// When to hedge a call just sent to `steps[sent]`: after its patience, if no hedge was
/// sent yet and the next replica is up.
fn hedge_after(steps: &[Step], sent: usize, hedged: bool) -> Option<Instant> {
    let next = steps.get(sent + 1)?;
    (!hedged && next.up).then(|| Instant::now() + steps[sent].patience)
}

#[cfg(test)]
mod tests {
    //! The order of events on tokio's paused clock: each call here is a timer standing for a
    //! replica's answer (the calls over HTTP are in `replicas`' tests).

    use super::*;

    const MS: Duration = Duration::from_millis(1);

    fn step(patience_ms: u64, up: bool) -> Step {
        Step {
            patience: MS * patience_ms as u32,
            up,
        }
    }

    /// Replica `i` answers `answers[i]` after its delay: the winner and when it won.
    async fn run(
        steps: &[Step],
        answers: &[(u64, Result<&'static str, &'static str>)],
    ) -> (Result<&'static str, Vec<String>>, Duration, Vec<usize>) {
        let started = Instant::now();
        let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = std::sync::Arc::clone(&asked);
        let answer = first_answer(steps, move |i| {
            log.lock().expect("log").push(i);
            let (delay, answer) = answers[i];
            async move {
                tokio::time::sleep(MS * delay as u32).await;
                answer.map_err(String::from)
            }
        })
        .await;
        let asked = asked.lock().expect("log").clone();
        (answer, started.elapsed(), asked)
    }

    #[tokio::test(start_paused = true)]
    async fn a_slow_replica_is_hedged_after_its_patience_and_the_first_answer_wins() {
        let steps = [step(10, true), step(10, true)];
        let (answer, took, asked) = run(&steps, &[(100, Ok("slow")), (2, Ok("fast"))]).await;
        assert_eq!(answer, Ok("fast"));
        assert_eq!(took, MS * 12, "hedged at 10 ms, answered 2 ms later");
        assert_eq!(asked, [0, 1]);
        // The first answers before its patience: no hedge.
        let (answer, took, asked) = run(&steps, &[(5, Ok("first")), (1, Ok("second"))]).await;
        assert_eq!((answer, took, asked), (Ok("first"), MS * 5, vec![0]));
        // Hedged, and the first still answers first.
        let (answer, _, asked) = run(&steps, &[(12, Ok("first")), (30, Ok("second"))]).await;
        assert_eq!((answer, asked), (Ok("first"), vec![0, 1]));
    }

    #[tokio::test(start_paused = true)]
    async fn a_failure_fails_over_at_once_and_all_failing_gives_every_failure() {
        let steps = [step(50, true), step(50, true), step(50, true)];
        let answers = [(1, Err("refused")), (3, Ok("second")), (1, Ok("third"))];
        let (answer, took, asked) = run(&steps, &answers).await;
        assert_eq!((answer, took, asked), (Ok("second"), MS * 4, vec![0, 1]));
        let failing = [(1, Err("a")), (2, Err("b")), (3, Err("c"))];
        let (answer, took, asked) = run(&steps, &failing).await;
        assert_eq!(answer, Err(vec!["a".into(), "b".into(), "c".into()]));
        assert_eq!((took, asked), (MS * 6, vec![0, 1, 2]));
    }

    #[tokio::test(start_paused = true)]
    async fn one_hedge_per_call_and_none_to_a_replica_found_down() {
        // Two slow replicas and a third: one hedge only, the third asked on failover.
        let steps = [step(10, true), step(10, true), step(10, true)];
        let answers = [(40, Err("late")), (60, Ok("second")), (1, Ok("third"))];
        let (answer, took, asked) = run(&steps, &answers).await;
        assert_eq!((answer, took, asked), (Ok("second"), MS * 70, vec![0, 1]));
        // The next one is down: no hedge, but a failover when the first fails.
        let steps = [step(10, true), step(10, false)];
        let (answer, took, asked) = run(&steps, &[(40, Ok("slow")), (1, Ok("down"))]).await;
        assert_eq!((answer, took, asked), (Ok("slow"), MS * 40, vec![0]));
        let (answer, took, asked) = run(&steps, &[(40, Err("no")), (1, Ok("down"))]).await;
        assert_eq!((answer, took, asked), (Ok("down"), MS * 41, vec![0, 1]));
        // A group of one: its answer or its failure.
        let (answer, _, _) = run(&steps[..1], &[(400, Ok("alone"))]).await;
        assert_eq!(answer, Ok("alone"));
    }
}
