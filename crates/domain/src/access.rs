//! Who may do what. Each application (the system a user signed in to) may call some operations;
//! reads are then scoped: a partner's representative sees only its partner's proposals and
//! customers, the online shop only its own (e-commerce) proposals, the back office everything.

use crate::auth::model::Principal;
use crate::values::Application;

/// The operations behind the routes; the spec's route number is in each comment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operation {
    /// 3
    CreateCustomer,
    /// 4
    CheckCustomer,
    /// 5
    CreateProposal,
    /// 6
    CreateEcommerceProposal,
    /// 7
    ReadProposal,
    /// 8, 9
    CheckAvailability,
    /// 10, 11, product listing
    ReadCatalog,
    /// Creating and updating products, banks and billing groups.
    ManageCatalog,
    /// 12: sending a proposal for signature (and resending).
    SendForSignature,
    /// 13: reading the client's signing link.
    ReadSignLink,
    /// Moving a proposal by hand (approve, reject, cancel).
    ChangeStatus,
    /// Cancelling a proposal at the customer's request, before it is signed: its seller (a
    /// partner's, or the shop's) or the back office.
    CancelProposal,
    /// Finding a customer's request by its protocol.
    ReadCustomerRequests,
    /// 14 to 16: the payment platform's customer, setup intent and subscription.
    EcommercePayments,
    /// 17, 18 and the rest of `/hooks`: the caller's own event subscriptions.
    ManageHooks,
    /// Every seller's registration of a CPF, with its seller.
    ReadRegistrations,
    /// A data subject's rights (LGPD): the export of what is held, and anonymisation.
    ManagePersonalData,
    /// The back office asks for documents, suspending the acceptance clock (issue 45).
    RequestDocuments,
    /// The proposal's seller answers a request for documents.
    AnswerPending,
    /// The analyst's queue: reading it, and assigning a proposal in analysis to a back-office user.
    AnalyseProposals,
    /// Pinning a user's credential to a contract version (issue 49).
    PinContractVersion,
}

impl Operation {
    pub const ALL: [Operation; 21] = [
        Operation::CreateCustomer,
        Operation::CheckCustomer,
        Operation::CreateProposal,
        Operation::CreateEcommerceProposal,
        Operation::ReadProposal,
        Operation::CheckAvailability,
        Operation::ReadCatalog,
        Operation::ManageCatalog,
        Operation::SendForSignature,
        Operation::ReadSignLink,
        Operation::ChangeStatus,
        Operation::CancelProposal,
        Operation::ReadCustomerRequests,
        Operation::EcommercePayments,
        Operation::ManageHooks,
        Operation::ReadRegistrations,
        Operation::ManagePersonalData,
        Operation::RequestDocuments,
        Operation::AnswerPending,
        Operation::AnalyseProposals,
        Operation::PinContractVersion,
    ];

    /// The permission matrix (README lists it too).
    pub fn allowed_for(self, application: Application) -> bool {
        use Application::*;
        use Operation::*;
        match self {
            CreateCustomer | CreateProposal => application == Partner,
            CreateEcommerceProposal => application == Ecommerce,
            CheckCustomer => matches!(application, Partner | BackOffice),
            ReadProposal | CheckAvailability | ReadCatalog => true,
            ManageCatalog | ChangeStatus | ReadRegistrations | ManagePersonalData => application == BackOffice,
            SendForSignature => application == Partner,
            EcommercePayments => application == Ecommerce,
            ReadSignLink => matches!(application, Partner | BackOffice),
            ManageHooks | CancelProposal => true,
            ReadCustomerRequests | RequestDocuments | AnalyseProposals | PinContractVersion => {
                application == BackOffice
            }
            AnswerPending => matches!(application, Partner | Ecommerce),
        }
    }
}

// Its own module, so that the stores' ports can name it without importing the permission rules
// (which read the partner directory, a port of theirs).
pub use crate::scope::Scope;

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AccessError {
    /// The caller's application may not perform the operation (HTTP 403).
    #[error("aplicação sem permissão para esta operação")]
    Forbidden,
    /// A `PARCEIRO` user with no partner behind it: misconfigured, refused.
    #[error("usuário PARCEIRO sem parceiro vinculado")]
    NoPartner,
}

/// Whose data the caller may see: a representative's partner, the shop's e-commerce proposals, or all.
pub async fn scope_of(
    principal: &Principal,
    partners: &dyn crate::proposals::ports::PartnerDirectory,
) -> Result<Scope, ScopeError> {
    Ok(match principal.application {
        Application::BackOffice => Scope::Everything,
        Application::Ecommerce => Scope::Ecommerce,
        Application::Partner => {
            let representation = partners
                .representation(principal.user_id)
                .await?
                .ok_or(AccessError::NoPartner)?;
            Scope::Partner {
                partner_id: representation.partner.partner_id,
                representative_id: representation.representative_id,
            }
        }
    })
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScopeError {
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
}

/// Checks the matrix for a principal.
pub fn authorize(principal: &Principal, operation: Operation) -> Result<(), AccessError> {
    if operation.allowed_for(principal.application) {
        Ok(())
    } else {
        Err(AccessError::Forbidden)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Application::*;
    use Operation::*;

    #[test]
    fn the_whole_matrix() {
        let expected: [(Operation, [bool; 3]); 21] = [
            // (operation, [ECOMMERCE, PARCEIRO, BACKOFFICE])
            (CreateCustomer, [false, true, false]),
            (CheckCustomer, [false, true, true]),
            (CreateProposal, [false, true, false]),
            (CreateEcommerceProposal, [true, false, false]),
            (ReadProposal, [true, true, true]),
            (CheckAvailability, [true, true, true]),
            (ReadCatalog, [true, true, true]),
            (ManageCatalog, [false, false, true]),
            (SendForSignature, [false, true, false]),
            (ReadSignLink, [false, true, true]),
            (ChangeStatus, [false, false, true]),
            (CancelProposal, [true, true, true]),
            (ReadCustomerRequests, [false, false, true]),
            (EcommercePayments, [true, false, false]),
            (ManageHooks, [true, true, true]),
            (ReadRegistrations, [false, false, true]),
            (ManagePersonalData, [false, false, true]),
            (RequestDocuments, [false, false, true]),
            (AnswerPending, [true, true, false]),
            (AnalyseProposals, [false, false, true]),
            (PinContractVersion, [false, false, true]),
        ];
        for (operation, row) in expected {
            for (app, allowed) in [Ecommerce, Partner, BackOffice].into_iter().zip(row) {
                assert_eq!(operation.allowed_for(app), allowed, "{operation:?} for {app}");
            }
        }
        assert_eq!(Operation::ALL.len(), expected.len());
    }
}
