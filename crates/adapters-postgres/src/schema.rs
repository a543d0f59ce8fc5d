// @generated automatically by Diesel CLI.

diesel::table! {
    addresses (id) {
        id -> Int8,
        cep -> Text,
        endereco -> Text,
        numero -> Text,
        bairro -> Text,
        cidade -> Text,
        estado -> Text,
        complemento -> Nullable<Text>,
        criado_em -> Timestamptz,
        alterado_em -> Timestamptz,
    }
}

diesel::table! {
    averbacoes (id_proposta) {
        id_proposta -> Int8,
        id_externo -> Nullable<Text>,
        situacao -> Text,
        margem -> Nullable<Int8>,
        motivo -> Nullable<Text>,
        solicitada_em -> Timestamptz,
        situacao_em -> Timestamptz,
        alterada_por -> Text,
    }
}

diesel::table! {
    banks (codigo_banco) {
        codigo_banco -> Text,
        nome -> Text,
    }
}

diesel::table! {
    billing_groups (id) {
        id -> Int8,
        codigo_faturamento -> Int4,
        descricao -> Text,
        codigo_integracao -> Int4,
        codigo_produto -> Int4,
        alterado_por -> Text,
        criado_em -> Timestamptz,
        alterado_em -> Timestamptz,
    }
}

diesel::table! {
    billing_notice_deliveries (id) {
        id -> Int8,
        id_aviso -> Int8,
        canal -> Text,
        destino -> Text,
        id_externo -> Nullable<Text>,
        status -> Text,
        motivo -> Nullable<Text>,
        enviado_em -> Timestamptz,
        entregue_em -> Nullable<Timestamptz>,
        falhou_em -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    billing_notices (id) {
        id -> Int8,
        id_proposta -> Int8,
        tipo -> Text,
        periodo -> Nullable<Int4>,
        vencimento -> Nullable<Date>,
        valor -> Nullable<Int8>,
        criado_em -> Timestamptz,
        recebido_em -> Nullable<Timestamptz>,
        frustrado_em -> Nullable<Timestamptz>,
        fechado_em -> Nullable<Timestamptz>,
        vigencia -> Nullable<Int4>,
        estipulante_em -> Nullable<Timestamptz>,
        estipulante_destino -> Nullable<Text>,
    }
}

diesel::table! {
    card_invoices (id_fatura) {
        id_fatura -> Text,
        id_proposta -> Int8,
        id_assinatura -> Text,
        valor -> Int8,
        pago_em -> Timestamptz,
        registrada_em -> Timestamptz,
    }
}

diesel::table! {
    charges (id) {
        id -> Int8,
        id_proposta -> Int8,
        periodo -> Int4,
        vencimento -> Date,
        valor -> Int8,
        metodo -> Text,
        status -> Text,
        tentativas -> Int4,
        proxima_tentativa -> Nullable<Date>,
        id_externo -> Nullable<Text>,
        motivo -> Nullable<Text>,
        pago_em -> Nullable<Timestamptz>,
        valor_pago -> Nullable<Int8>,
        criada_em -> Timestamptz,
        alterada_em -> Timestamptz,
        alterada_por -> Text,
        pix_e2e -> Nullable<Text>,
        apresentada_em -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    contract_billings (id_proposta) {
        id_proposta -> Int8,
        metodo -> Text,
        valor -> Int8,
        aceita_em -> Timestamptz,
        primeiro_vencimento -> Date,
        proximo_periodo -> Int4,
        proximo_vencimento -> Date,
        retentativas_dias -> Array<Nullable<Int4>>,
        carencia_dias -> Int4,
        suspensao_dias -> Int4,
        situacao -> Text,
        situacao_desde -> Timestamptz,
        situacao_por -> Text,
        encerrada_em -> Nullable<Timestamptz>,
        primeira_parcela -> Text,
        encerramento_dias -> Int4,
        coletivo_vida -> Bool,
    }
}

diesel::table! {
    contract_terms (id_proposta, sequencia) {
        id_proposta -> Int8,
        sequencia -> Int4,
        inicio -> Date,
        fim -> Date,
        meses -> Int4,
        renovacao -> Text,
        renovada_em -> Nullable<Timestamptz>,
        criada_em -> Timestamptz,
    }
}

diesel::table! {
    customer_requests (protocolo) {
        protocolo -> Text,
        proposal_id -> Int8,
        tipo -> Text,
        motivo -> Text,
        solicitado_por -> Text,
        solicitado_em -> Timestamptz,
    }
}

diesel::table! {
    customers (id) {
        id -> Int8,
        cpf -> Text,
        nome_completo -> Text,
        data_nascimento -> Date,
        sexo -> Text,
        estado_civil -> Nullable<Text>,
        nacionalidade -> Nullable<Text>,
        celular -> Nullable<Text>,
        telefone_fixo -> Nullable<Text>,
        email -> Nullable<Text>,
        profissao -> Nullable<Text>,
        salario -> Nullable<Int8>,
        trabalhando -> Bool,
        servidor_publico -> Bool,
        pep -> Bool,
        afastado -> Bool,
        medicamento -> Bool,
        medicamento_descricao -> Nullable<Text>,
        key_cliente -> Nullable<Text>,
        status -> Text,
        e_analfabeto -> Bool,
        codigo_jave -> Nullable<Text>,
        cargo_politico -> Nullable<Text>,
        id_endereco -> Nullable<Int8>,
        ecommerce_customer_id -> Nullable<Text>,
        alterado_por -> Text,
        criado_em -> Timestamptz,
        alterado_em -> Timestamptz,
        payment_method_id -> Nullable<Text>,
        aplicacao_vendedor -> Text,
        id_parceiro_vendedor -> Nullable<Int8>,
        nome_social -> Nullable<Text>,
        nome_mae -> Nullable<Text>,
    }
}

diesel::table! {
    debit_agreements (banco, convenio) {
        banco -> Text,
        convenio -> Text,
        ultimo_nsa -> Int4,
    }
}

diesel::table! {
    debit_authorizations (id_proposta) {
        id_proposta -> Int8,
        banco -> Text,
        autorizada_em -> Timestamptz,
        evidencia_sha256 -> Nullable<Text>,
        situacao -> Text,
        situacao_em -> Timestamptz,
        motivo -> Nullable<Text>,
        situacao_por -> Text,
    }
}

diesel::table! {
    debit_file_items (id_cobranca, tentativa) {
        id_cobranca -> Int8,
        tentativa -> Int4,
        id_remessa -> Int8,
        data_debito -> Date,
        valor -> Int8,
        codigo_retorno -> Nullable<Text>,
        id_retorno -> Nullable<Int8>,
        lido_em -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    debit_files (id) {
        id -> Int8,
        tipo -> Text,
        banco -> Text,
        convenio -> Text,
        nsa -> Int4,
        nome -> Text,
        registros -> Int4,
        valor_total -> Int8,
        sha256 -> Text,
        conteudo -> Nullable<Text>,
        em -> Timestamptz,
        confirmada_em -> Nullable<Timestamptz>,
        resumo -> Nullable<Text>,
    }
}

diesel::table! {
    ended_sessions (id, ended_at) {
        id -> Uuid,
        user_id -> Int8,
        application -> Text,
        credentials_epoch -> Int4,
        created_at -> Timestamptz,
        expires_at -> Timestamptz,
        ended_at -> Timestamptz,
        end_reason -> Text,
    }
}

diesel::table! {
    hook_attempts (id, delivery_created_at) {
        id -> Int8,
        delivery_id -> Int8,
        delivery_created_at -> Timestamptz,
        number -> Int4,
        attempted_at -> Timestamptz,
        response_status -> Nullable<Int4>,
        duration_ms -> Int8,
        error -> Nullable<Text>,
        next_attempt_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    hook_deliveries (id, created_at) {
        id -> Int8,
        subscription_id -> Int8,
        proposal_event_id -> Nullable<Int8>,
        message_id -> Text,
        event_type -> Text,
        body -> Text,
        state -> Text,
        attempts -> Int4,
        next_attempt_at -> Timestamptz,
        leased_until -> Nullable<Timestamptz>,
        created_at -> Timestamptz,
        delivered_at -> Nullable<Timestamptz>,
        replay_id -> Nullable<Int8>,
    }
}

diesel::table! {
    hook_replays (id) {
        id -> Int8,
        subscription_id -> Int8,
        since -> Timestamptz,
        until -> Timestamptz,
        requested_by -> Text,
        requested_at -> Timestamptz,
        deliveries -> Int4,
    }
}

diesel::table! {
    hook_subscriptions (id) {
        id -> Int8,
        uuid -> Uuid,
        owner_application -> Text,
        partner_id -> Nullable<Int8>,
        created_by -> Text,
        endpoint -> Text,
        events -> Array<Nullable<Text>>,
        status -> Text,
        secret_sealed -> Bytea,
        previous_secret_sealed -> Nullable<Bytea>,
        previous_secret_until -> Nullable<Timestamptz>,
        inactive_reason -> Nullable<Text>,
        last_success_at -> Nullable<Timestamptz>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        deleted_at -> Nullable<Timestamptz>,
        api_version -> Text,
    }
}

diesel::table! {
    idempotency_keys (user_id, key) {
        user_id -> Int8,
        key -> Text,
        fingerprint -> Text,
        created_at -> Timestamptz,
        claimed_at -> Timestamptz,
        completed_at -> Nullable<Timestamptz>,
        status -> Nullable<Int2>,
        content_type -> Nullable<Text>,
        body -> Nullable<Bytea>,
        answer_sealed -> Nullable<Bytea>,
        subjects -> Array<Nullable<Bytea>>,
        forgotten_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    kyc_cpf_status (cpf) {
        cpf -> Text,
        situacao -> Text,
        consultado_em -> Timestamptz,
    }
}

diesel::table! {
    kyc_pep_entries (id) {
        id -> Int8,
        id_importacao -> Int8,
        cpf_meio -> Text,
        nome -> Text,
        nome_chave -> Text,
        sigla_funcao -> Text,
        descricao_funcao -> Text,
        nivel_funcao -> Text,
        orgao -> Text,
        inicio_exercicio -> Date,
        fim_exercicio -> Nullable<Date>,
        fim_carencia -> Nullable<Date>,
    }
}

diesel::table! {
    kyc_pep_imports (id) {
        id -> Int8,
        arquivo -> Text,
        sha256 -> Text,
        linhas_lidas -> Int4,
        pessoas -> Int4,
        recusadas -> Int4,
        importada_em -> Timestamptz,
        importada_por -> Text,
    }
}

diesel::table! {
    kyc_sandbox_cpf_status (cpf) {
        cpf -> Text,
        resposta -> Text,
        definida_em -> Timestamptz,
    }
}

diesel::table! {
    ledger_checks (dia) {
        dia -> Date,
        iniciada_em -> Timestamptz,
        concluida_em -> Nullable<Timestamptz>,
        contratos -> Nullable<Int8>,
        contratos_divergentes -> Nullable<Int8>,
        lancamentos_inseridos -> Nullable<Int8>,
    }
}

diesel::table! {
    ledger_entries (id) {
        id -> Int8,
        id_proposta -> Int8,
        tipo -> Text,
        valor -> Int8,
        origem -> Text,
        id_origem -> Text,
        trilho -> Text,
        ocorrido_em -> Timestamptz,
        registrado_em -> Timestamptz,
    }
}

diesel::table! {
    motivations (id) {
        id -> Int4,
        descricao -> Text,
    }
}

diesel::table! {
    partner_brokers (id_parceiro) {
        id_parceiro -> Int8,
        registro_susep -> Text,
        alterado_por -> Text,
        alterado_em -> Timestamptz,
    }
}

diesel::table! {
    partners (id) {
        id -> Int8,
        cpf_cnpj -> Text,
        fantasy_name -> Nullable<Text>,
        social_reason -> Text,
        company_cnpj -> Nullable<Text>,
        company_fantasy_name -> Nullable<Text>,
        company_social_reason -> Nullable<Text>,
        association_cnpj -> Nullable<Text>,
        association_name -> Nullable<Text>,
        federation_cnpj -> Nullable<Text>,
        federation_name -> Nullable<Text>,
        alterado_por -> Text,
        criado_em -> Timestamptz,
        alterado_em -> Timestamptz,
    }
}

diesel::table! {
    password_recovery_tokens (id) {
        id -> Int8,
        user_id -> Int8,
        token_hash -> Text,
        created_at -> Timestamptz,
        expires_at -> Timestamptz,
        used_at -> Nullable<Timestamptz>,
        revoked_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    payment_customer_redactions (platform_customer_id) {
        platform_customer_id -> Text,
        requested_by -> Text,
        requested_at -> Timestamptz,
        answered_at -> Nullable<Timestamptz>,
        error -> Nullable<Text>,
    }
}

diesel::table! {
    payment_events (event_id, received_at) {
        event_id -> Text,
        kind -> Text,
        received_at -> Timestamptz,
    }
}

diesel::table! {
    personal_data_blocks (cpf) {
        cpf -> Text,
        base -> Text,
        retido_ate -> Nullable<Timestamptz>,
        bloqueado_em -> Timestamptz,
        bloqueado_por -> Text,
    }
}

diesel::table! {
    pix_recurrences (id_proposta) {
        id_proposta -> Int8,
        id_rec -> Text,
        status -> Text,
        pix_copia_e_cola -> Nullable<Text>,
        id_solic_rec -> Nullable<Text>,
        motivo -> Nullable<Text>,
        criada_em -> Timestamptz,
        alterada_em -> Timestamptz,
        alterada_por -> Text,
    }
}

diesel::table! {
    privacy_consents (id) {
        id -> Int8,
        cpf -> Text,
        finalidade -> Text,
        concedido -> Bool,
        registrado_em -> Timestamptz,
        registrado_por -> Text,
        canal -> Text,
        evidencia -> Nullable<Jsonb>,
    }
}

diesel::table! {
    privacy_person_links (id) {
        id -> Int8,
        token_sha256 -> Text,
        cpf -> Text,
        finalidade -> Text,
        enviado_para -> Text,
        emitido_em -> Timestamptz,
        expira_em -> Timestamptz,
        usado_em -> Nullable<Timestamptz>,
        protocolo -> Nullable<Text>,
    }
}

diesel::table! {
    privacy_requests (protocolo) {
        protocolo -> Text,
        cpf -> Text,
        tipo -> Text,
        canal -> Text,
        observacao -> Nullable<Text>,
        recebido_em -> Timestamptz,
        recebido_por -> Text,
        prazo -> Timestamptz,
        resposta -> Nullable<Text>,
        respondido_em -> Nullable<Timestamptz>,
        respondido_por -> Nullable<Text>,
        arquivo_nome -> Nullable<Text>,
        arquivo_sha256 -> Nullable<Text>,
        arquivo_bytes -> Nullable<Int8>,
        arquivo_enviado_para -> Nullable<Text>,
    }
}

diesel::table! {
    privacy_retention_runs (id) {
        id -> Int8,
        executado_em -> Timestamptz,
        referencia -> Timestamptz,
        titulares -> Int4,
        propostas -> Int4,
        respostas_saude -> Int4,
    }
}

diesel::table! {
    product_banks (product_id, codigo_banco) {
        product_id -> Int8,
        codigo_banco -> Text,
    }
}

diesel::table! {
    product_certificate_sequences (id_produto) {
        id_produto -> Int8,
        ultimo -> Int8,
    }
}

diesel::table! {
    products (id) {
        id -> Int8,
        codigo_produto -> Int4,
        nome -> Text,
        codigo_integracao -> Int4,
        ativo -> Bool,
        alterado_por -> Text,
        criado_em -> Timestamptz,
        alterado_em -> Timestamptz,
        valor -> Int8,
        price_id -> Nullable<Text>,
        termos -> Nullable<Text>,
        aceite_dias -> Int4,
        aceite_tacito -> Bool,
        aceite_suspensoes -> Int4,
        seguradora -> Nullable<Text>,
        seguradora_cnpj -> Nullable<Text>,
        processo_susep -> Nullable<Text>,
        cobertura -> Nullable<Text>,
        capital_segurado -> Nullable<Int8>,
        sac -> Nullable<Text>,
        ouvidoria -> Nullable<Text>,
        cobranca_primeiro_vencimento_dias -> Int4,
        cobranca_retentativas_dias -> Array<Nullable<Int4>>,
        cobranca_carencia_dias -> Int4,
        cobranca_suspensao_dias -> Int4,
        cobranca_primeira_parcela -> Text,
        cobranca_encerramento_dias -> Int4,
        vigencia_meses -> Int4,
        renovacao -> Text,
        cobranca_premio -> Text,
        seguro_coletivo_vida -> Bool,
        estipulante_nome -> Nullable<Text>,
        estipulante_email -> Nullable<Text>,
        aceite_revisao_dias -> Nullable<Int4>,
        beneficiarios_obrigatorios -> Bool,
        seguradora_codigo_susep -> Nullable<Text>,
        ramo_iof -> Text,
        estipulante_cnpj -> Nullable<Text>,
        apolice_mestre -> Nullable<Text>,
        condicoes_versao -> Nullable<Text>,
        condicoes_url -> Nullable<Text>,
        condicoes_sha256 -> Nullable<Text>,
        condicoes_exclusoes -> Nullable<Text>,
        condicoes_carencias -> Nullable<Text>,
        aceite_documentos_vendedor -> Bool,
    }
}

diesel::table! {
    proposal_acceptances (id_proposta) {
        id_proposta -> Int8,
        recebida_em -> Timestamptz,
        prazo_em -> Timestamptz,
        tacito -> Bool,
        suspensoes_permitidas -> Int4,
        suspensa_desde -> Nullable<Timestamptz>,
        decidida_em -> Nullable<Timestamptz>,
        vencida_em -> Nullable<Timestamptz>,
        analista -> Nullable<Text>,
        atribuida_por -> Nullable<Text>,
        atribuida_em -> Nullable<Timestamptz>,
        cobertura_provisoria_desde -> Nullable<Timestamptz>,
        revisao_em -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    proposal_beneficiaries (id_proposta) {
        id_proposta -> Int8,
        beneficiarios -> Jsonb,
        criado_em -> Timestamptz,
    }
}

diesel::table! {
    proposal_certificates (id_proposta, tipo, vigencia) {
        id_proposta -> Int8,
        aceita_em -> Timestamptz,
        pdf -> Nullable<Bytea>,
        sha256 -> Nullable<Text>,
        emitido_em -> Nullable<Timestamptz>,
        enviado_para -> Nullable<Text>,
        enviado_em -> Nullable<Timestamptz>,
        reservado_ate -> Nullable<Timestamptz>,
        tipo -> Text,
        vigencia -> Int4,
        retido_em -> Nullable<Timestamptz>,
        retido_motivo -> Nullable<Text>,
        numero -> Nullable<Text>,
        modelo_versao -> Nullable<Text>,
        modelo_sha256 -> Nullable<Text>,
    }
}

diesel::table! {
    proposal_customers (id_proposta) {
        id_proposta -> Int8,
        id_cliente -> Int8,
        cpf -> Text,
        nome_completo -> Text,
        data_nascimento -> Date,
        sexo -> Text,
        estado_civil -> Nullable<Text>,
        nacionalidade -> Nullable<Text>,
        celular -> Nullable<Text>,
        telefone_fixo -> Nullable<Text>,
        email -> Nullable<Text>,
        profissao -> Nullable<Text>,
        salario -> Nullable<Int8>,
        trabalhando -> Bool,
        servidor_publico -> Bool,
        pep -> Bool,
        afastado -> Bool,
        medicamento -> Bool,
        medicamento_descricao -> Nullable<Text>,
        e_analfabeto -> Bool,
        cargo_politico -> Nullable<Text>,
        cep -> Text,
        endereco -> Text,
        numero -> Text,
        bairro -> Text,
        cidade -> Text,
        estado -> Text,
        complemento -> Nullable<Text>,
        alterado_por -> Text,
        criado_em -> Timestamptz,
        alterado_em -> Timestamptz,
        nome_busca -> Text,
        nome_social -> Nullable<Text>,
        nome_mae -> Nullable<Text>,
    }
}

diesel::table! {
    proposal_event_sequences (proposal_id, kind) {
        proposal_id -> Int8,
        kind -> Text,
        last_sequence -> Int4,
    }
}

diesel::table! {
    proposal_events (id) {
        id -> Int8,
        proposal_id -> Int8,
        kind -> Text,
        from_status -> Text,
        to_status -> Text,
        changed_by -> Text,
        changed_at -> Timestamptz,
        sequence -> Int4,
        reason -> Nullable<Text>,
        reason_category -> Nullable<Text>,
    }
}

diesel::table! {
    proposal_history (id, at) {
        id -> Int8,
        proposal_id -> Int8,
        at -> Timestamptz,
        changed_by -> Text,
        action -> Text,
        changes -> Jsonb,
    }
}

diesel::table! {
    proposal_kyc (id_proposta) {
        id_proposta -> Int8,
        pep -> Bool,
        situacao -> Text,
        motivos -> Jsonb,
        criada_em -> Timestamptz,
        decidida_por -> Nullable<Text>,
        decidida_em -> Nullable<Timestamptz>,
        nota -> Nullable<Text>,
    }
}

diesel::table! {
    proposal_notices (id_proposta) {
        id_proposta -> Int8,
        aviso_versao -> Text,
        aviso_sha256 -> Text,
        termos_sha256 -> Text,
        canal -> Text,
        exibidos_em -> Timestamptz,
        modelo_versao -> Nullable<Text>,
        modelo_sha256 -> Nullable<Text>,
    }
}

diesel::table! {
    proposal_operations (id) {
        id -> Uuid,
        proposal_id -> Int8,
        kind -> Text,
        state -> Text,
        requested_by -> Text,
        reason -> Nullable<Text>,
        target -> Nullable<Text>,
        started_at -> Timestamptz,
        finished_at -> Nullable<Timestamptz>,
        outcome -> Nullable<Text>,
        attempts -> Int4,
        lease_until -> Nullable<Timestamptz>,
        reason_category -> Nullable<Text>,
    }
}

diesel::table! {
    proposal_payments (id) {
        id -> Int8,
        id_proposta -> Int8,
        tipo -> Text,
        nome_cartao -> Nullable<Text>,
        numero_cartao -> Nullable<Text>,
        validade -> Nullable<Text>,
        dia_cobranca -> Nullable<Int4>,
        banco -> Nullable<Text>,
        agencia -> Nullable<Text>,
        conta -> Nullable<Text>,
        operacao -> Nullable<Text>,
        numero_folha -> Nullable<Text>,
        tipo_folha -> Nullable<Text>,
        especie -> Nullable<Int4>,
        orgao_emissor -> Nullable<Text>,
        alterado_por -> Text,
        criado_em -> Timestamptz,
        alterado_em -> Timestamptz,
        ispb -> Nullable<Text>,
    }
}

diesel::table! {
    proposal_pending_files (id) {
        id -> Int8,
        id_pendencia -> Int8,
        nome -> Text,
        tipo -> Text,
        tamanho -> Int4,
        sha256 -> Text,
        conteudo -> Nullable<Bytea>,
        enviado_em -> Timestamptz,
    }
}

diesel::table! {
    proposal_pending_requests (id) {
        id -> Int8,
        id_proposta -> Int8,
        itens -> Array<Nullable<Text>>,
        nota -> Nullable<Text>,
        pedida_por -> Text,
        pedida_em -> Timestamptz,
        resposta -> Nullable<Text>,
        respondida_por -> Nullable<Text>,
        respondida_em -> Nullable<Timestamptz>,
        categoria_motivo -> Text,
        destinatario -> Text,
        link_sha256 -> Nullable<Text>,
        link_enviado_para -> Nullable<Text>,
    }
}

diesel::table! {
    proposal_read_model_stale (id_proposta) {
        id_proposta -> Int8,
        desde -> Timestamptz,
    }
}

diesel::table! {
    proposal_read_models (id_proposta) {
        id_proposta -> Int8,
        identificador -> Text,
        fluxo -> Text,
        id_parceiro -> Nullable<Int8>,
        documento -> Jsonb,
        bloqueado -> Bool,
    }
}

diesel::table! {
    proposals (id) {
        id -> Int8,
        identificador -> Text,
        id_jave -> Nullable<Text>,
        valor -> Int8,
        cpf_cnpj_parceiro -> Nullable<Text>,
        id_parceiro -> Nullable<Int8>,
        id_representante -> Nullable<Int8>,
        id_cliente -> Int8,
        key_documento -> Nullable<Text>,
        key_assinatura_requisicao -> Nullable<Text>,
        reenvios -> Int4,
        status -> Text,
        alterado_por -> Text,
        alterado_em -> Timestamptz,
        criado_em -> Timestamptz,
        cnpj_associacao -> Nullable<Text>,
        cnpj_federacao -> Nullable<Text>,
        tipo_envio -> Text,
        reenvio_notificacao -> Int4,
        fluxo -> Text,
        codigo_associado -> Nullable<Text>,
        id_motivacao -> Int4,
        id_produto -> Int8,
        id_gravacao -> Nullable<Text>,
        id_convite -> Nullable<Text>,
        assinatura_eletronica -> Nullable<Text>,
        codigo_faturamento -> Int4,
        tipo_pagamento -> Nullable<Text>,
        cpf_cliente -> Text,
    }
}

diesel::table! {
    provider_signed_copies (document_key) {
        document_key -> Text,
        pdf -> Bytea,
        sha256 -> Text,
        received_at -> Timestamptz,
    }
}

diesel::table! {
    rate_limit_counters (subject, window_start) {
        subject -> Text,
        window_start -> Int8,
        hits -> Int8,
    }
}

diesel::table! {
    refresh_tokens (jti) {
        jti -> Uuid,
        session_id -> Uuid,
        user_id -> Int8,
        application -> Text,
        issued_at -> Timestamptz,
        expires_at -> Timestamptz,
        used_at -> Nullable<Timestamptz>,
        revoked_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    refund_destinations (id_proposta) {
        id_proposta -> Int8,
        tipo -> Text,
        tipo_chave -> Nullable<Text>,
        chave -> Nullable<Text>,
        banco -> Nullable<Text>,
        agencia -> Nullable<Text>,
        conta -> Nullable<Text>,
        tipo_conta -> Nullable<Text>,
        registrado_por -> Text,
        registrado_em -> Timestamptz,
    }
}

diesel::table! {
    refunds (id) {
        id -> Text,
        protocolo -> Nullable<Text>,
        proposal_id -> Int8,
        invoice_id -> Nullable<Text>,
        amount_cents -> Int8,
        status -> Text,
        created_at -> Timestamptz,
        motivo -> Text,
        meio -> Text,
        nominal_cents -> Nullable<Int8>,
        correcao -> Nullable<Jsonb>,
        referencia -> Nullable<Text>,
        pago_em -> Nullable<Timestamptz>,
        pago_por -> Nullable<Text>,
        vence_em -> Nullable<Date>,
        atraso_de -> Nullable<Text>,
    }
}

diesel::table! {
    refusal_defences (id) {
        id -> Int8,
        id_proposta -> Int8,
        identificador -> Text,
        cpf_tag -> Bytea,
        recusada_em -> Timestamptz,
        motivo -> Nullable<Text>,
        categoria_motivo -> Nullable<Text>,
        declaracao -> Jsonb,
        pedidos -> Jsonb,
        guardada_em -> Timestamptz,
        guardada_por -> Text,
        apagar_em -> Timestamptz,
    }
}

diesel::table! {
    removed_documents (proposal_id) {
        proposal_id -> Int8,
        removed_by -> Text,
        removed_at -> Timestamptz,
    }
}

diesel::table! {
    representatives (id) {
        id -> Int8,
        user_id -> Int8,
        partner_id -> Int8,
        video_attendance_token -> Nullable<Text>,
        criado_em -> Timestamptz,
        alterado_em -> Timestamptz,
    }
}

diesel::table! {
    sandbox_clock (singleton) {
        singleton -> Bool,
        deslocamento_segundos -> Int8,
        alterado_em -> Timestamptz,
    }
}

diesel::table! {
    sandbox_payment_objects (id) {
        id -> Text,
        kind -> Text,
        idempotency_key -> Nullable<Text>,
        object -> Jsonb,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    sealed_documents (proposal_id) {
        proposal_id -> Int8,
        pdf -> Bytea,
        sha256 -> Text,
        sealed_by -> Text,
        sealed_at -> Timestamptz,
    }
}

diesel::table! {
    sessions (id) {
        id -> Uuid,
        user_id -> Int8,
        application -> Text,
        credentials_epoch -> Int4,
        created_at -> Timestamptz,
        expires_at -> Timestamptz,
        ended_at -> Nullable<Timestamptz>,
        end_reason -> Nullable<Text>,
    }
}

diesel::table! {
    setup_intents (id) {
        id -> Text,
        customer_id -> Int8,
        status -> Text,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    signature_callbacks (event_id, received_at) {
        event_id -> Text,
        received_at -> Timestamptz,
    }
}

diesel::table! {
    signature_parties (signature_id, role) {
        signature_id -> Int8,
        role -> Text,
        request_key -> Text,
        status -> Text,
        signed_at -> Nullable<Timestamptz>,
        latitude -> Nullable<Text>,
        longitude -> Nullable<Text>,
        ip -> Nullable<Text>,
        user_agent -> Nullable<Text>,
        authentication -> Nullable<Text>,
    }
}

diesel::table! {
    signatures (id) {
        id -> Int8,
        proposal_id -> Int8,
        document_key -> Nullable<Text>,
        sign_url -> Nullable<Text>,
        alterado_por -> Text,
        criado_em -> Timestamptz,
        alterado_em -> Timestamptz,
        prazo_em -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    signed_documents (proposal_id) {
        proposal_id -> Int8,
        pdf -> Bytea,
        sha256 -> Text,
        made_at -> Timestamptz,
    }
}

diesel::table! {
    signin_throttle (scope, key) {
        scope -> Text,
        key -> Text,
        failures -> Int4,
        window_started_at -> Timestamptz,
        blocked_until -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    subscriptions (id) {
        id -> Int8,
        proposal_id -> Int8,
        customer_id -> Int8,
        product_id -> Int8,
        platform_id -> Nullable<Text>,
        status -> Text,
        object -> Nullable<Jsonb>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        current_period_end -> Nullable<Timestamptz>,
        latest_invoice_status -> Nullable<Text>,
        platform_read_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    user_applications (user_id, application) {
        user_id -> Int8,
        application -> Text,
    }
}

diesel::table! {
    users (id) {
        id -> Int8,
        email -> Text,
        password_hash -> Text,
        name -> Nullable<Text>,
        cpf -> Nullable<Text>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        credentials_epoch -> Int4,
        disabled_at -> Nullable<Timestamptz>,
        api_version -> Nullable<Text>,
    }
}

diesel::joinable!(averbacoes -> contract_billings (id_proposta));
diesel::joinable!(billing_notice_deliveries -> billing_notices (id_aviso));
diesel::joinable!(billing_notices -> proposals (id_proposta));
diesel::joinable!(card_invoices -> proposals (id_proposta));
diesel::joinable!(charges -> contract_billings (id_proposta));
diesel::joinable!(contract_billings -> proposals (id_proposta));
diesel::joinable!(contract_terms -> proposals (id_proposta));
diesel::joinable!(customer_requests -> proposals (proposal_id));
diesel::joinable!(customers -> addresses (id_endereco));
diesel::joinable!(customers -> partners (id_parceiro_vendedor));
diesel::joinable!(debit_authorizations -> contract_billings (id_proposta));
diesel::joinable!(debit_file_items -> charges (id_cobranca));
diesel::joinable!(ended_sessions -> users (user_id));
diesel::joinable!(hook_deliveries -> hook_replays (replay_id));
diesel::joinable!(hook_deliveries -> hook_subscriptions (subscription_id));
diesel::joinable!(hook_deliveries -> proposal_events (proposal_event_id));
diesel::joinable!(hook_replays -> hook_subscriptions (subscription_id));
diesel::joinable!(hook_subscriptions -> partners (partner_id));
diesel::joinable!(idempotency_keys -> users (user_id));
diesel::joinable!(kyc_pep_entries -> kyc_pep_imports (id_importacao));
diesel::joinable!(ledger_entries -> proposals (id_proposta));
diesel::joinable!(partner_brokers -> partners (id_parceiro));
diesel::joinable!(password_recovery_tokens -> users (user_id));
diesel::joinable!(pix_recurrences -> proposals (id_proposta));
diesel::joinable!(privacy_person_links -> privacy_requests (protocolo));
diesel::joinable!(product_banks -> banks (codigo_banco));
diesel::joinable!(product_banks -> products (product_id));
diesel::joinable!(product_certificate_sequences -> products (id_produto));
diesel::joinable!(proposal_acceptances -> proposals (id_proposta));
diesel::joinable!(proposal_beneficiaries -> proposals (id_proposta));
diesel::joinable!(proposal_certificates -> proposals (id_proposta));
diesel::joinable!(proposal_customers -> customers (id_cliente));
diesel::joinable!(proposal_customers -> proposals (id_proposta));
diesel::joinable!(proposal_event_sequences -> proposals (proposal_id));
diesel::joinable!(proposal_events -> proposals (proposal_id));
diesel::joinable!(proposal_history -> proposals (proposal_id));
diesel::joinable!(proposal_kyc -> proposals (id_proposta));
diesel::joinable!(proposal_notices -> proposals (id_proposta));
diesel::joinable!(proposal_operations -> proposals (proposal_id));
diesel::joinable!(proposal_payments -> proposals (id_proposta));
diesel::joinable!(proposal_pending_files -> proposal_pending_requests (id_pendencia));
diesel::joinable!(proposal_pending_requests -> proposals (id_proposta));
diesel::joinable!(proposal_read_models -> proposals (id_proposta));
diesel::joinable!(proposals -> customers (id_cliente));
diesel::joinable!(proposals -> motivations (id_motivacao));
diesel::joinable!(proposals -> partners (id_parceiro));
diesel::joinable!(proposals -> products (id_produto));
diesel::joinable!(proposals -> representatives (id_representante));
diesel::joinable!(refresh_tokens -> sessions (session_id));
diesel::joinable!(refresh_tokens -> users (user_id));
diesel::joinable!(refund_destinations -> proposals (id_proposta));
diesel::joinable!(refunds -> customer_requests (protocolo));
diesel::joinable!(refunds -> proposals (proposal_id));
diesel::joinable!(refusal_defences -> proposals (id_proposta));
diesel::joinable!(removed_documents -> proposals (proposal_id));
diesel::joinable!(representatives -> partners (partner_id));
diesel::joinable!(representatives -> users (user_id));
diesel::joinable!(sealed_documents -> proposals (proposal_id));
diesel::joinable!(sessions -> users (user_id));
diesel::joinable!(setup_intents -> customers (customer_id));
diesel::joinable!(signature_parties -> signatures (signature_id));
diesel::joinable!(signatures -> proposals (proposal_id));
diesel::joinable!(signed_documents -> proposals (proposal_id));
diesel::joinable!(subscriptions -> customers (customer_id));
diesel::joinable!(subscriptions -> products (product_id));
diesel::joinable!(subscriptions -> proposals (proposal_id));
diesel::joinable!(user_applications -> users (user_id));

diesel::allow_tables_to_appear_in_same_query!(
    addresses,
    averbacoes,
    banks,
    billing_groups,
    billing_notice_deliveries,
    billing_notices,
    card_invoices,
    charges,
    contract_billings,
    contract_terms,
    customer_requests,
    customers,
    debit_agreements,
    debit_authorizations,
    debit_file_items,
    debit_files,
    ended_sessions,
    hook_attempts,
    hook_deliveries,
    hook_replays,
    hook_subscriptions,
    idempotency_keys,
    kyc_cpf_status,
    kyc_pep_entries,
    kyc_pep_imports,
    kyc_sandbox_cpf_status,
    ledger_checks,
    ledger_entries,
    motivations,
    partner_brokers,
    partners,
    password_recovery_tokens,
    payment_customer_redactions,
    payment_events,
    personal_data_blocks,
    pix_recurrences,
    privacy_consents,
    privacy_person_links,
    privacy_requests,
    privacy_retention_runs,
    product_banks,
    product_certificate_sequences,
    products,
    proposal_acceptances,
    proposal_beneficiaries,
    proposal_certificates,
    proposal_customers,
    proposal_event_sequences,
    proposal_events,
    proposal_history,
    proposal_kyc,
    proposal_notices,
    proposal_operations,
    proposal_payments,
    proposal_pending_files,
    proposal_pending_requests,
    proposal_read_model_stale,
    proposal_read_models,
    proposals,
    provider_signed_copies,
    rate_limit_counters,
    refresh_tokens,
    refund_destinations,
    refunds,
    refusal_defences,
    removed_documents,
    representatives,
    sandbox_clock,
    sandbox_payment_objects,
    sealed_documents,
    sessions,
    setup_intents,
    signature_callbacks,
    signature_parties,
    signatures,
    signed_documents,
    signin_throttle,
    subscriptions,
    user_applications,
    users,
);
