//! When the shop collects a product's premium, as values (decision 271; Lei 15.040/2024 art. 19
//! §2): the product's setting, the provisional cover it gives and what the documents print of
//! it. The collection at acceptance itself is the e-commerce's (`ecommerce::collection`).

use chrono::{DateTime, Utc};

/// How long the platform holds a subscription uncollected: longer than any acceptance can take
/// (at most 90 days and its suspensions), so that the hold never ends by itself before the
/// insurer decides; a proposal that ends undecided cancels it.
pub const HOLD_DAYS: i64 = 365;

/// The platform's status of a held subscription (Stripe's trial).
pub const HELD_STATUS: &str = "trialing";

/// When a product sold by the shop collects its premium.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PremiumCollection {
    /// At the sale (route 16), with provisional cover from the payment until the insurer's
    /// decision (art. 19 §2). What every product did before decision 271, so the default.
    #[default]
    ProvisionalCover,
    /// Only once the insurer accepted: nothing is charged before, nor on a refusal.
    AtAcceptance,
}

impl PremiumCollection {
    pub const ALL: [Self; 2] = [Self::ProvisionalCover, Self::AtAcceptance];

    /// As stored, shown and given to `sales-api catalog collection`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ProvisionalCover => "cobertura_provisoria",
            Self::AtAcceptance => "na_aceitacao",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == text)
    }

    /// The instant until which the platform holds a new subscription uncollected, if this
    /// collection holds one.
    pub fn hold_until(self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        (self == Self::AtAcceptance).then(|| now + chrono::Duration::days(HOLD_DAYS))
    }
}

/// The provisional cover of a shop's sale: from its payment until the insurer's decision (the
/// acceptance starts the contract's term; a refusal, a withdrawal or a cancellation ends it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProvisionalCover {
    pub from: DateTime<Utc>,
    /// `None` while the insurer has not decided.
    pub until: Option<DateTime<Utc>>,
}

/// What the proposal and the terms e-mailed at route 16 say of the premium's collection and of
/// the provisional cover (`cover`: the one running or run, when the payment was made).
pub fn collection_clause(collection: PremiumCollection, cover: Option<&ProvisionalCover>) -> String {
    use crate::contract::formats::instant;
    match collection {
        PremiumCollection::ProvisionalCover => {
            let from = cover.map_or_else(
                || "o pagamento".to_owned(),
                |c| format!("o pagamento, em {}", instant(c.from)),
            );
            let until = match cover.and_then(|c| c.until) {
                Some(until) => format!("a decisão da seguradora, em {}", instant(until)),
                None => "a aceitação da proposta, quando começa a vigência do contrato, ou a sua recusa".to_owned(),
            };
            format!(
                "A primeira mensalidade é cobrada no cartão de crédito na contratação. Por isso a \
                 seguradora concede cobertura provisória desde {from} até {until} (Lei nº \
                 15.040/2024, art. 19, § 2º); recusada a proposta, tudo o que foi pago é devolvido."
            )
        }
        PremiumCollection::AtAcceptance => {
            "Nada é cobrado antes de a seguradora aceitar a proposta (Lei nº 15.040/2024, \
             art. 19, § 2º): o cartão de crédito fica registrado e a primeira mensalidade é cobrada \
             na aceitação; recusada a proposta, nada é cobrado."
                .to_owned()
        }
    }
}
