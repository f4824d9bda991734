//! The Settings screen: the settings as the screen edits them ([`form`])
//! and what the screen does ([`screen`]): show them, save them to the
//! configuration file ([`crate::config`]), keep API keys in the keychain,
//! test a connection and list a server's models; its "Try a model" panel
//! (`ask.rs`) sends one prompt and streams the reply.

pub(crate) mod ask;
pub mod form;
pub mod screen;
