//! What a data subject may ask for (LGPD art. 18) and how a request reaches us: the closed lists
//! the requests, the person's own links and the consents' proof share.

use crate::validation::{Rejection, codes};

macro_rules! coded {
    ($(#[$doc:meta])* $name:ident, $field:literal, { $($variant:ident => ($code:literal, $label:literal),)+ }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name { $($variant,)+ }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant,)+];

            pub fn code(self) -> &'static str {
                match self { $($name::$variant => $code,)+ }
            }

            /// How people read it.
            pub fn label(self) -> &'static str {
                match self { $($name::$variant => $label,)+ }
            }

            pub fn parse(text: &str) -> Result<Self, Rejection> {
                Self::ALL.iter().copied().find(|k| k.code() == text).ok_or_else(|| {
                    let known: Vec<&str> = Self::ALL.iter().map(|k| k.code()).collect();
                    Rejection::new(
                        codes::INVALID_VALUE,
                        format!("{} deve ser um destes: {}", $field, known.join(", ")),
                    )
                })
            }
        }
    };
}

coded!(
    /// What the person asked for (art. 18's rights).
    RequestKind, "kind", {
        Access => ("acesso", "Acesso aos dados (art. 18, II)"),
        Correction => ("correcao", "Correção de dados (art. 18, III)"),
        Anonymization => ("anonimizacao", "Anonimização ou bloqueio (art. 18, IV)"),
        Portability => ("portabilidade", "Portabilidade (art. 18, V)"),
        Elimination => ("eliminacao", "Eliminação (art. 18, VI)"),
        Sharing => ("compartilhamento", "Com quem os dados foram compartilhados (art. 18, VII)"),
        ConsentRevocation => ("revogacao_consentimento", "Revogação do consentimento (art. 18, IX)"),
    }
);

coded!(
    /// How the request reached us.
    RequestChannel, "channel", {
        Phone => ("telefone", "Telefone (SAC)"),
        Email => ("email", "E-mail"),
        Chat => ("chat", "Chat"),
        Letter => ("carta", "Carta"),
        InPerson => ("presencial", "Presencial"),
    }
);

impl RequestKind {
    /// The kinds whose answer is the person's data itself (the export), sent as a file.
    pub fn answered_with_the_data(self) -> bool {
        matches!(
            self,
            RequestKind::Access | RequestKind::Portability | RequestKind::Sharing
        )
    }
}
