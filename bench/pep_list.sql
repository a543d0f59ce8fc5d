-- The CGU's list of politically exposed persons at its monthly size (about 150,000 people; issue
-- 70), for the binaries that screen a sale against it (migration 77 on; a no-op before): route 5
-- searches it for every sale by the CPF's six middle digits and the name's key. No benchmark
-- customer is on it, as most customers are on no list.
DO $$
BEGIN
    IF to_regclass('kyc_pep_entries') IS NOT NULL THEN
        INSERT INTO kyc_pep_imports (arquivo, sha256, linhas_lidas, pessoas, recusadas, importada_por)
        VALUES ('bench_PEP.csv', repeat('0', 64), 150000, 150000, 0, 'bench');
        INSERT INTO kyc_pep_entries (id_importacao, cpf_meio, nome, nome_chave, sigla_funcao, descricao_funcao,
                                     nivel_funcao, orgao, inicio_exercicio, fim_exercicio, fim_carencia)
        SELECT currval('kyc_pep_imports_id_seq'), lpad((g * 6007 % 1000000)::text, 6, '0'),
               'PESSOA EXPOSTA ' || g, 'PESSOA EXPOSTA ' || g, 'DAS', 'ASSESSOR', '4', 'ORGAO ' || (g % 500),
               date '2020-01-01', NULL, date '2031-01-01'
        FROM generate_series(1, 150000) AS g;
    END IF;
END $$;
ANALYZE;
