"""A tabela de mutações (dev/mutacoes.py, dev/mutacoes_lista.py) bate com os arquivos e com o
CONTRIBUINDO.md, sem rodar mutação nenhuma (o `make test` roda a amostra: `mutacoes.py --ci`).

Um trecho que outra mudança apagou (uma linha reescrita de um widget) falha aqui, no `make
check`, com o alvo, o nome e o trecho: atualize a linha em dev/mutacoes_lista.py.
"""
import importlib.util

from conftest import RAIZ


def _script():
    spec = importlib.util.spec_from_file_location("mutacoes", RAIZ / "dev" / "mutacoes.py")
    modulo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(modulo)
    return modulo


M = _script()


def test_cada_trecho_aparece_uma_vez_e_muda_algo():
    problemas = M.confere_tabela()
    assert not problemas, "\n".join(problemas)


def test_pelo_menos_dez_mutacoes_por_alvo_e_as_que_o_issue_pede():
    assert set(M.ALVOS) == {"brinquedo", "formato", "widgets", "notebooks", "pdf", "razao", "treino", "exercicios",
                            "tema", "listas"}
    for alvo in M.ALVOS:
        assert len(M.mutacoes(alvo)) >= 10, alvo
    desenho = [m for m in M.mutacoes("widgets") if m[1].startswith("desenho:")]
    assert len(desenho) >= 8 and {"escala.py", "html.py", "geracao.py", "passos.py"} <= \
        {a.split("/")[-1] for a, *_ in desenho}
    assert any("mantissa" in m[1] for m in M.mutacoes("formato"))
    assert any("razao.py" in a for a, *_ in M.mutacoes("razao")) and any("rapido.py" in a for a, *_ in M.mutacoes("razao"))
    # o treino: a volta (softmax, LN, GELU, atenção com a máscara), Adam, o corpus e o widget
    treino = " ".join(m[1] for m in M.mutacoes("treino"))
    for trecho in ("softmax", "LN", "GELU", "máscara", "Adam", "corpus", "piso"):
        assert trecho in treino, trecho
    assert {"treino.py"} == {a.split("/")[-1] for a, *_ in M.mutacoes("treino")} and \
        any("widgets/treino.py" in a for a, *_ in M.mutacoes("treino"))
    # os exercícios: a leitura, a tolerância, o sorteio, um erro típico e um gabarito
    exercicios = " ".join(m[1] for m in M.mutacoes("exercicios"))
    for trecho in ("leitura", "tolerância", "sorteio", "erro típico", "NFD", "%", "␣"):
        assert trecho in exercicios, trecho
    # o ciclo de quem ensina: a semente do aluno, o link, o código de entrega, a turma, as entregas, as notas
    listas = " ".join(m[1] for m in M.mutacoes("listas"))
    for trecho in ("semente", "link", "código", "turma", "entregas", "notas", "oculta"):
        assert trecho in listas, trecho
    # o tema: o desempate e o "e" das referências, a busca, os scripts, os ícones, as linhas, as figuras, o MathJax
    tema = " ".join(m[1] for m in M.mutacoes("tema"))
    for trecho in ("desempate", '"and"', "busca", "scripts", "regras", "recuo", "px", "MathJax"):
        assert trecho in tema, trecho


def test_amostra_do_ci_e_fixa():
    for alvo in M.ALVOS:
        a = M.amostra_ci(alvo)
        assert a == M.amostra_ci(alvo) and len(a) == M.AMOSTRA_CI
        assert set(a) <= set(M.mutacoes(alvo))
    for alvo, testes in M.RAPIDOS.items():
        assert all((RAIZ / "tests" / t).exists() for t in testes), alvo


def test_tabela_do_contribuindo_saiu_do_script():
    """A tabela do CONTRIBUINDO.md tem uma linha por alvo, com os arquivos e o número de mutações
    de agora (as contagens de pegas saem de `python dev/mutacoes.py --escreve`)."""
    escrita = M.tabela_escrita()
    assert list(escrita) == M.ALVOS
    for alvo, (arquivos, n) in escrita.items():
        assert n == len(M.mutacoes(alvo)), (f"{alvo}: a tabela do CONTRIBUINDO diz {n} mutações, o script tem "
                                            f"{len(M.mutacoes(alvo))}: rode `python dev/mutacoes.py --escreve`")
        assert arquivos.strip() == M.arquivos_do_alvo(alvo)
    assert M.arquivos_do_alvo("widgets").startswith("`campos.py`, `geracao.py`")
    assert M.arquivos_do_alvo("treino") == "`livro/treino.py`, `widgets/treino.py`"


def test_tabela_md_das_contagens():
    p = {"mutacoes": 3, "testes": 2, "trava": 1, "so_trava": 1, "escapam": 0, "trava_rodou": True,
         "trava_sempre": True}
    linhas = M.tabela_md({"widgets": p, "pdf": {**p, "trava_rodou": False}}).splitlines()
    assert linhas[2].startswith("| widgets | `campos.py`") and linhas[2].endswith("| 3 | 2 | 1 (1) | 0 |")
    assert linhas[3].endswith("| 3 | 2 | sem trava | 0 |")
