//! One dedicated `LISTEN` connection per channel, re-established when it drops. What a
//! notification means is the caller's: a wake-up for the delivery engine, a stale catalog.

use crate::statement::built_at_run_time;
use diesel::result::Error as DieselError;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use futures_util::StreamExt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// What the listening connection saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListenEvent {
    /// `LISTEN` is in place: from now on no notification on the channel is missed.
    Listening,
    /// A notification arrived on the channel.
    Notified,
    /// The connection dropped: notifications may be missed until the next `Listening`.
    Lost,
}

/// Listens on `channel` in the background on the current tokio runtime, for as long as the
/// runtime lives, reconnecting a second after each loss.
pub(crate) fn spawn_listener(
    database_url: &str,
    channel: &'static str,
    on_event: impl Fn(ListenEvent) + Send + Sync + 'static,
) {
    let url = database_url.to_owned();
    tokio::spawn(async move {
        loop {
            if let Err(error) = listen(&url, channel, &on_event).await {
                tracing::warn!(%error, channel, "listener lost; reconnecting");
            }
            on_event(ListenEvent::Lost);
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    });
}

async fn listen(url: &str, channel: &str, on_event: &impl Fn(ListenEvent)) -> Result<(), DieselError> {
    let mut conn = AsyncPgConnection::establish(url)
        .await
        .map_err(|e| DieselError::QueryBuilderError(e.to_string().into()))?;
    built_at_run_time(format!("LISTEN {channel}"))
        .execute(&mut conn)
        .await?;
    on_event(ListenEvent::Listening);
    let mut stream = std::pin::pin!(conn.notifications_stream());
    while let Some(notification) = stream.next().await {
        notification?;
        on_event(ListenEvent::Notified);
    }
    Ok(())
}

/// What a cache kept from a listened channel may trust: a generation that every notification
/// moves on (so that a read which raced a change cannot store what it saw as current), and
/// whether the listener is in place (while it is not, nothing may be kept or served).
#[derive(Default)]
pub(crate) struct Freshness {
    generation: AtomicU64,
    listening: AtomicBool,
}

impl Freshness {
    /// The generation a read from PostgreSQL starts in, or `None` when nothing may be kept.
    pub(crate) fn current(&self) -> Option<u64> {
        // Called as functions: diesel's `RunQueryDsl::load` is in scope here too.
        AtomicBool::load(&self.listening, Ordering::Acquire)
            .then(|| AtomicU64::load(&self.generation, Ordering::Acquire))
    }

    /// Everything kept so far is stale.
    pub(crate) fn move_on(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    /// Applies what the listener saw. Every event makes what was kept stale: a notification, a
    /// loss (changes may go unseen from now), and a return (changes may have gone unseen).
    pub(crate) fn on_event(&self, event: ListenEvent) {
        match event {
            ListenEvent::Listening => {
                self.move_on();
                self.listening.store(true, Ordering::Release);
            }
            ListenEvent::Notified => self.move_on(),
            ListenEvent::Lost => {
                self.listening.store(false, Ordering::Release);
                self.move_on();
            }
        }
    }
}
