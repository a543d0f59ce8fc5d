//! Text messages for the domain's `Messenger` port (issue 67: the notices of an unpaid premium
//! go by SMS or WhatsApp too, each delivery's receipt recorded): Twilio's Messages API in
//! production ([`TwilioMessenger`]), and development's sandbox ([`SandboxMessenger`]).

mod sandbox;
mod twilio;

pub use sandbox::{SANDBOX_LATER_REPORT_ENDING, SANDBOX_UNREACHABLE_ENDING, SandboxMessenger};
pub use twilio::{TwilioMessenger, TwilioSettings};
