//! The signals that stop a program as Ctrl-C does: SIGINT, and SIGTERM, which systemd, `kill`
//! and orchestrators send to stop a service. Either one starts the same orderly stop (a
//! server finishes the requests in flight, a crawl its writes).

/// Completes at the first SIGINT or SIGTERM.
pub async fn requested() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = terminate.recv() => {}
                }
                return;
            }
            Err(error) => {
                tracing::warn!(%error, "cannot listen for SIGTERM: only Ctrl-C stops this program");
            }
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
