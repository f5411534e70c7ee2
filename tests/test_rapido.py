"""A razão rápida (livro_ext/trava/rapido.py) é a mesma do build, byte a byte.

A razão rápida roda cada página como o build roda (o leitor e o cliente de execução do myst-nb,
num kernel de verdade), sem o Sphinx. Onde cada chave é colada (a linha que a página de números
mostra) vem só da leitura do código, razao_codigo.py: tests/test_razao.py confere essa linha
contra o fonte das páginas.
"""
import pytest

from livro_ext.trava import rapido
from livro_ext.trava import razao

from conftest import RAIZ

# `lento`: os testes que rodam o código das páginas (como o make trava-rapida); os puros rodam no make check
lento = pytest.mark.lento


@pytest.fixture(scope="module")
def rapida():
    return rapido.executar(rapido.paginas())


@lento
def test_razao_rapida_igual_a_do_build(build, rapida):
    nova, problemas = razao.coletar_resultados(rapida)
    assert problemas == []
    do_build = razao.coletar(build)
    linhas = razao.diferencas(do_build, nova)
    assert not linhas, "a razão rápida difere da do build:\n" + "\n".join(linhas[:40])
    assert razao.serializa(nova) == razao.serializa(do_build)


@lento
def test_razao_rapida_confere_com_o_lock(rapida):
    assert rapido.comparar(rapida) == []


def test_a_execucao_segue_o_config_do_livro():
    """O cliente do myst-nb recebe a configuração do _config.yml (como o jupyter-book a passa ao
    Sphinx), menos o modo (sempre executa) e o raise_on_error (a falha vira uma linha `!`)."""
    import yaml

    conf = yaml.safe_load((RAIZ / "_config.yml").read_text(encoding="utf-8"))["execute"]
    nb = rapido.config_execucao()
    assert nb.execution_timeout == conf["timeout"]
    assert nb.execution_allow_errors is conf["allow_errors"] is False
    assert nb.execution_in_temp is conf.get("run_in_temp", False)
    assert (nb.execution_mode, nb.execution_raise_on_error) == ("force", False)


@lento
def test_o_relatorio_usa_vem_do_kernel(rapida):
    """`usa`: o que o kernel da página carregou (a célula CONSULTA, tirada antes da razão)."""
    assert "torch" in rapida["book/laboratorio"]["usa"]
    assert rapida["book/index"]["usa"] == []
    assert all(c["source"] != rapido.CONSULTA for r in rapida.values() for c in r["nb"]["cells"])


@pytest.mark.parametrize("pedacos", [['{"usa": ["numpy"], "fios_torch": null}\n'],
                                     ['{"usa": ["numpy"], "fios_torch": null}', "\n"],
                                     ['{"usa": ["num', 'py"], "fios_torch": null}', "\n"]])
def test_a_consulta_le_o_stdout_em_pedacos(pedacos):
    # o kernel pode mandar o print em pedaços (o "\n" à parte): a trava leu só o último e quebrou
    saidas = [{"output_type": "stream", "name": "stdout", "text": p} for p in pedacos]
    saidas.insert(1, {"output_type": "stream", "name": "stderr", "text": "aviso\n"})
    assert rapido.info_da_consulta({"outputs": saidas}) == {"usa": ["numpy"], "fios_torch": None}
    assert rapido.info_da_consulta({"outputs": []}) == {}


def test_kernel_que_nao_parte_roda_a_pagina_de_novo_uma_vez(monkeypatch):
    chamadas = []

    def executa(md, falhas):
        chamadas.append(md)
        if len(chamadas) <= falhas:
            raise RuntimeError("Kernel didn't respond in 60 seconds")
        return {"erro": None}

    monkeypatch.setattr(rapido, "_executa_pagina", lambda md: executa(md, 1))
    assert rapido._roda_pagina("book/x.md") == {"erro": None} and len(chamadas) == 2
    chamadas.clear()   # duas vezes seguidas: vira diferença, com a mensagem
    monkeypatch.setattr(rapido, "_executa_pagina", lambda md: executa(md, 2))
    assert rapido._roda_pagina("book/x.md")["erro"].startswith("RuntimeError: Kernel didn't respond")
    chamadas.clear()   # outro erro de execução: sem nova tentativa
    monkeypatch.setattr(rapido, "_executa_pagina", lambda md: (chamadas.append(md), 1 / 0))
    assert rapido._roda_pagina("book/x.md")["erro"].startswith("ZeroDivisionError") and len(chamadas) == 1


@lento
def test_pagina_que_quebra_vira_diferenca(tmp_path):
    """Um brinquedo que não importa: cada página vira uma linha `!`, e nada trava."""
    ruim = tmp_path / "brinquedo.py"
    ruim.write_text("raise RuntimeError('brinquedo quebrado de propósito')\n", encoding="utf-8")
    md = RAIZ / "book" / "saida.md"
    res = rapido.executar([md], str(ruim))
    linhas = rapido.comparar(res)
    assert linhas[0].startswith("! book/saida: a página não rodou:")
    assert "brinquedo quebrado de propósito" in linhas[0]


@lento
def test_make_lock_grava_os_numeros_das_fontes_de_agora(tmp_path):
    """`make lock` (rapido.py --aceitar) calcula a razão das fontes atuais: uma mudança em lab/
    aparece no lock na hora, sem depender de um _build velho."""
    lock = tmp_path / "lock.json"
    lock.write_text((RAIZ / "book" / "numeros.lock.json").read_text(encoding="utf-8"), encoding="utf-8")
    outro = tmp_path / "brinquedo.py"
    fonte = (RAIZ / "lab" / "livro" / "brinquedo.py").read_text(encoding="utf-8")
    assert "EPS = 1e-5" in fonte
    outro.write_text(fonte.replace("EPS = 1e-5", "EPS = 1e-1"), encoding="utf-8")
    md = str(RAIZ / "book" / "saida.md")
    assert rapido.main([md, "--brinquedo", str(outro), "--lock", str(lock), "--aceitar"]) == 0
    novo, velho = razao.ler_lock(lock), razao.ler_lock()
    assert novo["book/saida"] != velho["book/saida"]            # os números novos entraram
    assert {p: v for p, v in novo.items() if p != "book/saida"} == \
        {p: v for p, v in velho.items() if p != "book/saida"}   # as outras páginas ficaram
    # e a trava rápida, contra o lock novo, confere com o brinquedo mudado
    assert rapido.main([md, "--brinquedo", str(outro), "--lock", str(lock)]) == 0


@lento
def test_aceitar_recusa_pagina_que_nao_roda(tmp_path):
    lock = tmp_path / "lock.json"
    lock.write_text("{}\n", encoding="utf-8")
    ruim = tmp_path / "brinquedo.py"
    ruim.write_text("raise RuntimeError('quebrado')\n", encoding="utf-8")
    md = str(RAIZ / "book" / "saida.md")
    assert rapido.main([md, "--brinquedo", str(ruim), "--lock", str(lock), "--aceitar"]) == 1
    assert lock.read_text(encoding="utf-8") == "{}\n"
