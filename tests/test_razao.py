"""A trava dos números: o build de agora mostra os mesmos números que book/numeros.lock.json.

A regra do que entra na razão está no CONTRIBUINDO.md ("Verificar").
"""
import html as html_mod
import json
import re
import shutil
import subprocess
import time

import pytest

from livro_ext.trava import razao
from livro_ext.trava import razao_codigo
from livro_ext.trava import razao_pagina
from livro_ext.trava import razao_texto

from conftest import RAIZ

PY = RAIZ / ".venv" / "bin" / "python"
JB = RAIZ / ".venv" / "bin" / "jupyter-book"


def test_razao_confere_com_o_lock(build):
    linhas = razao.verificar(build, razao.LOCK)
    assert not linhas, ("números mudaram (se é de propósito: make lock):\n" + "\n".join(linhas))


def test_lock_existe_e_esta_em_forma_canonica():
    assert razao.LOCK.exists(), "falta book/numeros.lock.json: rode `make lock`"
    texto = razao.LOCK.read_text(encoding="utf-8")
    assert texto == razao.serializa(json.loads(texto)), "lock editado à mão? rode `make lock`"
    assert razao.PAGINA_RAZAO not in json.loads(texto)


def test_pagina_para_instrutores_mostra_todo_numero(build):
    html = build / "html" / (razao.PAGINA_RAZAO + ".html")
    assert html.exists(), "book/numeros.md saiu do _toc.yml? A página para instrutores sumiu do site."
    texto = html.read_text(encoding="utf-8")
    total = sum(len(v) for v in razao.ler_lock().values())
    assert texto.count("<tr>") - 1 == total  # menos a linha do cabeçalho
    assert f'<span id="razao-conta">{total} números</span>' in texto
    assert 'id="razao-filtro"' in texto


def _linhas_da_pagina_de_numeros(build):
    texto = (build / "html" / (razao.PAGINA_RAZAO + ".html")).read_text(encoding="utf-8")
    corpo = texto[texto.index('id="razao-tabela"'):]
    corpo = corpo[corpo.index("<tbody>"):corpo.index("</tbody>")]
    return re.findall(r"<tr>(.*?)</tr>", corpo, re.S)


def test_pagina_para_instrutores_tem_o_codigo_de_cada_numero(build):
    """Toda linha da página de números diz arquivo, linha e o código que calcula o valor."""
    linhas = _linhas_da_pagina_de_numeros(build)
    assert linhas
    sem = []
    for ln in linhas:
        chave = re.search(r"<code>(.*?)</code>", ln).group(1)
        ref = re.search(r"<small><code>(book/[\w/]+\.md)(?::(\d+))?</code></small>", ln)
        if razao_pagina.SEM_CODIGO in ln or not ref or not ref.group(2) or 'class="razao-codigo"' not in ln:
            sem.append(f"{ref.group(1) if ref else '?'} · {html_mod.unescape(chave)}")
    assert not sem, f"{len(sem)} de {len(linhas)} números sem código na página de números:\n" + "\n".join(sem[:30])


def test_pagina_para_instrutores_aponta_a_linha_certa(build):
    """A linha indicada no .md é mesmo onde o código do número está (amostra de cada tipo)."""
    lock = razao.ler_lock()
    vistos = set()
    for ln in _linhas_da_pagina_de_numeros(build):
        chave = html_mod.unescape(re.search(r"<code>(.*?)</code>", ln).group(1))
        ref = re.search(r"<small><code>(book/[\w/]+\.md):(\d+)</code></small>", ln)
        cod = html_mod.unescape(re.search(r'<pre class="razao-codigo">(.*?)</pre>', ln, re.S).group(1))
        md, linha = RAIZ / ref.group(1), int(ref.group(2))
        fonte = md.read_text(encoding="utf-8").splitlines()
        # a linha apontada está dentro do trecho mostrado
        assert fonte[linha - 1].strip() in cod, (chave, ref.group(0), fonte[linha - 1], cod)
        vistos.add(chave.split(":")[0] if ":" in chave else "glue")
        assert chave in lock[ref.group(1)[:-3]]
    assert {"glue", "celula", "widget"} <= vistos


# A razão anda num sentido só: cada módulo importa só os de antes dele nesta ordem.
FLUXO = ["razao_codigo", "razao_texto", "razao", "razao_pagina", "rapido"]


def _importa_de_livro_ext(modulo: str) -> set:
    import ast

    arvore = ast.parse((RAIZ / "livro_ext" / "trava" / f"{modulo}.py").read_text(encoding="utf-8"))
    nomes = set()
    for no in ast.walk(arvore):
        if not isinstance(no, ast.ImportFrom):
            continue
        if no.level == 1:                                       # from . import x / from .x import y
            resto = no.module or ""
        elif (no.module or "").startswith("livro_ext"):          # from livro_ext(.trava)(.x) import y
            resto = no.module.removeprefix("livro_ext").lstrip(".").removeprefix("trava").lstrip(".")
        else:
            continue
        nomes |= {resto} if resto else {a.name for a in no.names}
    return nomes & set(FLUXO)


def test_a_razao_anda_num_sentido_so():
    """coletar (razao.py) → normalizar (razao_texto.py) → comparar (razao.py), sem volta:
    razao_texto.py não importa razao.py, e ninguém importa quem vem depois dele."""
    for i, modulo in enumerate(FLUXO):
        assert _importa_de_livro_ext(modulo) <= set(FLUXO[:i]), (modulo, _importa_de_livro_ext(modulo))
    assert _importa_de_livro_ext("razao_texto") == {"razao_codigo"}
    assert {"razao_texto"} <= _importa_de_livro_ext("razao")


# ---------------------------------------------------------------------------
# A regra do que entra (um notebook de mentira, sem build)
# ---------------------------------------------------------------------------
def _celula(src, saidas=(), tags=()):
    return {"cell_type": "code", "source": src, "metadata": {"tags": list(tags)},
            "outputs": list(saidas), "execution_count": 1}


def _stdout(t):
    return {"output_type": "stream", "name": "stdout", "text": t}


def test_regra_do_que_entra(tmp_path):
    pasta = tmp_path / "_build" / "jupyter_execute" / "book"
    pasta.mkdir(parents=True)
    nb = {"cells": [
        {"cell_type": "markdown", "source": "# Página", "metadata": {}},
        _celula('glue("p", num(0.3951), display=False)\nprint("oculta")', [_stdout("oculta\n")],
                tags=["remove-cell"]),
        _celula("print(vetor(a))", [_stdout("[-0,739; 1,411]\n"),
                                    {"output_type": "execute_result", "metadata": {},
                                     "data": {"text/plain": "[-0.7392358889419289, 1.41]"}}]),
        _celula("import time\nfor i in range(2):\n    glue(f\"t_{i}\", time.time())\nprint(1)",
                [_stdout("1\n")], tags=["nao-travar"]),
        _celula("object()", [{"output_type": "execute_result", "metadata": {},
                              "data": {"text/plain": "<object object at 0x7f05f32c73d0>"}}]),
        _celula("aviso()", [{"output_type": "stream", "name": "stderr", "text": "cuidado\n"}]),
        _celula("fig", [{"output_type": "display_data", "metadata": {},
                         "data": {"image/png": "iVBOR", "text/plain": "<Figure>"}}]),
    ], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (pasta / "pag.ipynb").write_text(json.dumps(nb))
    glue = {
        "p": {"data": {"text/plain": "'0,395'"}},
        "eq": {"data": {"text/latex": "$\\displaystyle h = 0{,}5$", "text/plain": "<Math>"}},
        "fig": {"data": {"image/png": "iVBOR", "text/plain": "<Figure>"}},
        "t_0": {"data": {"text/plain": "1700000000.1"}},
        "t_1": {"data": {"text/plain": "1700000000.2"}},
    }
    (pasta / "pag.glue.json").write_text(json.dumps(glue))
    # a própria página da razão nunca entra
    (pasta / "numeros.ipynb").write_text(json.dumps(nb))

    r = razao.coletar(tmp_path / "_build")
    assert r == {"book/pag": {
        "celula:02.1": "[-0,739; 1,411]",
        "celula:02.2": "[-0.739235888942, 1.41]",   # float cru: 12 dígitos significativos
        "eq": "h = 0{,}5",
        "fig": "(figura)",
        "p": "0,395",
    }}
    # o texto do lock: chaves em ordem, um espaço de recuo, sem escapar acentos, \n no fim
    assert razao.serializa({"b": {"y": "1", "x": "é"}, "a": {}}) == (
        '{\n "a": {},\n "b": {\n  "x": "é",\n  "y": "1"\n }\n}\n')


def test_uma_linha_por_numero_que_mudou():
    velha = {"book/a": {"x": "0,395", "y": "1", "z": "l1\nl2\nl3"}, "book/b": {"k": "2"}}
    nova = {"book/a": {"x": "0,402", "w": "3", "z": "l1\nL2\nl3"}, "book/c": {"k": "2"}}
    linhas = razao.diferencas(velha, nova)
    assert linhas == [
        "+ book/a · w: 3 (novo)",
        "~ book/a · x: 0,395 → 0,402",
        "- book/a · y: 1 (sumiu)",
        "~ book/a · z linha 2: l2 → L2",
        "- book/b · k: 2 (sumiu)",
        "+ book/c · k: 2 (novo)",
    ]
    assert razao.diferencas(velha, nova, paginas={"book/b"}) == ["- book/b · k: 2 (sumiu)"]


# ---------------------------------------------------------------------------
# De ponta a ponta: um peso do brinquedo muda numa cópia, o build da página falha
# ---------------------------------------------------------------------------
PAGINA = "book/embeddings"    # X = E[ids] + P: depende da tabela de tokens E
CHAVE = "x5"                  # a linha do último token, x_5
MUDANCA = "\n# mudança de teste: um peso da tabela de tokens (o ␣no, último token)\nE[1][0] = E[1][0] + 1\n"


def _copia_do_repositorio(destino):
    """Os arquivos do git e os novos ainda não commitados (sem .venv, _build, node_modules)."""
    nomes = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=RAIZ,
                           check=True, capture_output=True).stdout.decode().split("\0")
    for nome in filter(None, nomes):
        if nome.split("/")[0] in (".venv", "_build", "node_modules"):
            continue
        orig = RAIZ / nome
        if orig.is_file():
            (destino / nome).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(orig, destino / nome)


def _ambiente(copia):
    """O pacote livro da cópia na frente do instalado (o kernel das páginas herda o ambiente)."""
    import os

    return dict(os.environ, PYTHONPATH=str(copia / "lab"))


def _constroi(copia):
    shutil.rmtree(copia / "_build", ignore_errors=True)
    r = subprocess.run([str(JB), "build", str(copia), "--all", "--toc", str(copia / "toc_teste.yml")],
                       cwd=copia, capture_output=True, text=True, timeout=600, env=_ambiente(copia))
    assert r.returncode == 0, f"o build da cópia falhou:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    assert (copia / "_build" / "jupyter_execute" / (PAGINA + ".ipynb")).exists()


def _verifica(copia):
    return subprocess.run([str(PY), "-m", "livro_ext.trava.razao", "verificar",
                           str(copia / "_build"), "--parcial"],
                          cwd=copia, capture_output=True, text=True, timeout=120, env=_ambiente(copia))


@pytest.mark.lento
def test_peso_mudado_derruba_o_build_e_voltar_passa(tmp_path):
    inicio = time.time()
    lock = razao.ler_lock()
    assert CHAVE in lock.get(PAGINA, {}), f"o lock não tem {PAGINA} · {CHAVE}: escolha outra chave"
    copia = tmp_path / "livro"
    _copia_do_repositorio(copia)
    (copia / "toc_teste.yml").write_text(f"format: jb-book\nroot: {PAGINA}\n")
    brinquedo = copia / "lab" / "livro" / "brinquedo.py"
    original = brinquedo.read_text(encoding="utf-8")

    brinquedo.write_text(original + MUDANCA, encoding="utf-8")
    _constroi(copia)
    r = _verifica(copia)
    assert r.returncode == 1, r.stdout + r.stderr
    velho = re.escape(lock[PAGINA][CHAVE])
    assert re.search(rf"^\s*~ {re.escape(PAGINA)} · {CHAVE}: {velho} → ", r.stdout, re.M), r.stdout
    # só a página construída é comparada: as outras não aparecem como sumidas
    outras = [ln for ln in r.stdout.splitlines() if re.match(r"^\s*[-+~] ", ln) and f" {PAGINA} · " not in ln]
    assert not outras, r.stdout

    brinquedo.write_text(original, encoding="utf-8")
    _constroi(copia)
    r = _verifica(copia)
    assert r.returncode == 0, r.stdout + r.stderr
    print(f"ida e volta em {time.time() - inicio:.0f} s")


# ---------------------------------------------------------------------------
# Widgets e diagramas: o texto que o leitor vê, não o estilo
# ---------------------------------------------------------------------------
WIDGET = """<html><body><p>texto da página 0,5</p>
<div class="livro-widget extra" data-widget="saida" id="widget-saida">
 <p class="lw-titulo">Experimente · A saída</p>
 <form><label><span>T =</span><input type="text" name="T" value="0,7"></label>
  <label><input type="checkbox" checked> com atenção</label>
  <input type="range" value="7"><input type="hidden" name="x" value="segredo">
  <select name="tok"><option value="1">␣no</option><option value="6" selected>␣telhado</option></select></form>
 <p class="lw-erro" role="alert" hidden>erro escondido</p>
 <script>var x = "0,999";</script>
 <table><tr><th>token</th><th>p</th></tr>
  <tr><th>␣telhado</th><td><span class="lw-barra" style="--p:0.395"></span></td><td>0,395</td></tr></table>
 <p style="display: none">oculto</p>
</div>
<div class="livro-widget" data-widget="saida" id="widget-saida-2"><p>de novo: <b>1</b>,<b>2</b></p></div>
</body></html>"""

ESPERADO = ("Experimente · A saída\nT = [0,7] [x] com atenção [␣telhado]\n"
            "token | p\n␣telhado | 0,395")


def test_widget_vira_texto_visivel():
    w = razao_texto.widgets_no_html(WIDGET)
    assert w == {"widget:saida": ESPERADO, "widget:saida-2": "de novo: 1 , 2"}


def test_widget_restilizado_da_o_mesmo_texto():
    """Outras classes, outros elementos em linha, atributos de estilo: o mesmo valor na trava."""
    outro = (WIDGET.replace('class="lw-titulo"', 'class="nova-classe" style="color: red"')
                   .replace("<span>T =</span>", "<strong class='x'>T =</strong>")
                   .replace('style="--p:0.395"', 'style="--p:0.9; width: 3em"')
                   .replace("<form>", '<form class="grade-nova">'))
    assert razao_texto.widgets_no_html(outro) == razao_texto.widgets_no_html(WIDGET)
    # ... mas um número que muda aparece como uma linha que muda
    mudado = razao_texto.widgets_no_html(WIDGET.replace("<td>0,395</td>", "<td>0,402</td>"))
    linhas = razao.diferencas({"book/saida": razao_texto.widgets_no_html(WIDGET)}, {"book/saida": mudado})
    assert linhas == ["~ book/saida · widget:saida linha 4: ␣telhado | 0,395 → ␣telhado | 0,402"]


def _build_falso(tmp_path, glue=None, html=None, pagina="pag"):
    pasta = tmp_path / "_build" / "jupyter_execute" / "book"
    pasta.mkdir(parents=True, exist_ok=True)
    nb = {"cells": [_celula('cola("eq", Math(r"a \\times b"))', tags=["remove-cell"])],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (pasta / f"{pagina}.ipynb").write_text(json.dumps(nb))
    (pasta / f"{pagina}.glue.json").write_text(json.dumps(glue or {}))
    if html is not None:
        h = tmp_path / "_build" / "html" / "book"
        h.mkdir(parents=True, exist_ok=True)
        (h / f"{pagina}.html").write_text(html, encoding="utf-8")
    return tmp_path / "_build"


def test_widgets_do_html_entram_na_razao(tmp_path):
    build = _build_falso(tmp_path, glue={"p": {"data": {"text/plain": "'0,395'"}}}, html=WIDGET)
    r = razao.coletar(build)
    assert r == {"book/pag": {"p": "0,395", "widget:saida": ESPERADO, "widget:saida-2": "de novo: 1 , 2"}}


def test_os_widgets_entram_no_lock():
    from livro.widgets import api as widgets_api

    lock = razao.ler_lock()
    nos_widgets = {k.split(":", 1)[1] for itens in lock.values() for k in itens if k.startswith("widget:")}
    # os exercícios conferidos também são widgets (exercicio:<id>), um por exercício
    from livro.exercicios import EXERCICIOS
    exercicios = {n for n in nos_widgets if n.startswith(widgets_api.PREFIXO_EXERCICIO)}
    assert exercicios == {widgets_api.PREFIXO_EXERCICIO + i for i in EXERCICIOS}
    assert nos_widgets - exercicios == set(widgets_api.WIDGETS)
    assert len(nos_widgets - exercicios) == 12  # os dez das páginas, e a lista e a entrega de quem ensina
    # o estado inicial traz números (a saída mostra os 12 logits)
    assert "␣telhado | 0,395 | 2,491" in lock["book/saida"]["widget:saida"].splitlines()


def test_diagrama_entra_com_rotulos_e_formas():
    from livro import diagramas

    dados = {"text/html": diagramas.caminho()._repr_html_(), "text/plain": "<Diagrama>"}
    v = razao_texto.valor_glue(dados)
    linhas = v.splitlines()
    assert linhas[0].startswith("(descrição: O caminho do texto ao próximo token")
    assert "X, 5 × 4 (GPT-2: n × 768)" in linhas[0]
    assert "O caminho inteiro, do texto ao próximo token" in linhas
    assert "5 × 4" in linhas and "n × 768" in linhas
    mapa = razao_texto.valor_glue({"text/html": diagramas.voce_esta_aqui(3)._repr_html_()})
    assert "você está no passo 3 de 7" in mapa
    assert ["5", "O bloco"] == mapa.splitlines()[mapa.splitlines().index("O bloco") - 1:][:2]
    # uma forma que muda aparece na trava
    outro = razao_texto.valor_glue({"text/html": dados["text/html"].replace(">5 × 4<", ">5 × 8<")})
    assert outro != v
    # o índice desenhado embaixo (um <tspan>) fica colado à letra, como o leitor o vê
    assert "norma final + camada de saída: LN(y) WU" in linhas


# ---------------------------------------------------------------------------
# Caracteres de controle (um \t que comeu o \times)
# ---------------------------------------------------------------------------
TAB = {"eq": {"data": {"text/latex": "$\\displaystyle 768 \times 64$", "text/plain": "<Math>"}}}


def test_caractere_de_controle_derruba_gerar(tmp_path, capsys):
    build = _build_falso(tmp_path, glue={**TAB, "ok": {"data": {"text/plain": "'1'"}}})
    with pytest.raises(razao.ErroRazao) as e:
        razao.coletar(build)
    assert e.value.problemas == [
        "book/pag · eq: caractere de controle no valor colado: U+0009 (TAB) em '768 \\timesx 64' "
        "(use uma string r\"...\" no LaTeX)".replace("\\timesx", "\\times")]
    assert razao.main(["gerar", str(build)]) == 1
    saida = capsys.readouterr().out
    assert "book/pag · eq" in saida and "U+0009 (TAB)" in saida
    assert not (build / razao.NOME).exists()          # nada de razão quebrada
    linhas = razao.verificar(build, tmp_path / "lock.json")
    assert linhas[0].startswith("! book/pag · eq: caractere de controle")


def test_aceitar_recusa_caractere_de_controle(tmp_path, capsys):
    """Um caminho só para o lock (rapido.aceitar, o `make lock`), e ele recusa o TAB do LaTeX."""
    from livro_ext.trava import rapido

    build = _build_falso(tmp_path, glue=TAB)
    nb = json.loads((build / "jupyter_execute" / "book" / "pag.ipynb").read_text())
    lock = tmp_path / "lock.json"
    assert rapido.aceitar({"book/pag": {"nb": nb, "glue": TAB}}, lock) == 1
    assert "U+0009 (TAB)" in capsys.readouterr().out and not lock.exists()
    with pytest.raises(SystemExit):                      # a razão do build não escreve o lock
        razao.main(["aceitar", str(build), "--lock", str(lock)])


@pytest.mark.parametrize("latex,acha", [
    ("a \\neq b", None), ("a \neq b", "\\n seguido de um comando LaTeX"),
    ("\\frac{1}{2}", None), ("\frac{1}{2}", "U+000C"), ("\\beta", None), ("\beta", "U+0008"),
    ("x \\\\\n y", None)])
def test_latex_sem_r(latex, acha, tmp_path):
    build = _build_falso(tmp_path, glue={"eq": {"data": {"text/latex": f"${latex}$"}}})
    problemas = []
    razao.coletar(build, problemas=problemas)
    if acha is None:
        assert problemas == []
    else:
        assert len(problemas) == 1 and acha in problemas[0] and "book/pag · eq" in problemas[0]


def test_lock_nao_tem_caractere_de_controle():
    for pag, itens in razao.ler_lock().items():
        for chave, v in itens.items():
            assert not razao_texto.controles(v, saida=chave.startswith("celula:")), (pag, chave, v)


# ---------------------------------------------------------------------------
# Onde cada chave é colada (a leitura do código, sem executar)
# ---------------------------------------------------------------------------
CELULAS = [
    'import brinquedo as b\nNOMES = ["a", "b"]\n',
    'def g(chave, v):\n    cola(chave, num(v))\n\ndef gm(nome, v, pre="eq_"):\n    cola(pre + nome, Math(v))\n',
    'cola("fixo", "1")\n'
    'for i in range(2):\n    for j in (0, 1):\n        cola(f"rope_{i}_{j}", num(i * j))\n'
    'for s, v in zip(["the", "The_esp"], [1, 2]):\n    cola("id_" + s, str(v))\n'
    'for n in NOMES:\n    g(f"{n}_tot", 3)\n'
    'gm("x5", "x")\n'
    'g(\n    "longa",\n    2,\n)\n'
    'for nome, p in [("gqa", gqa8), ("mha", mha8)]:\n    cola(f"{nome}_at", abreviado(p))\n'
    'pg.cola(f"z_{k:02d}", "1")\n',
]


def test_varredor_acha_nomes_montados():
    v = razao_codigo.Varredor()
    achados = [v.celula(c) for c in CELULAS]
    assert achados[0] == []
    assert [(p, lin) for p, lin, _ in achados[1]] == []        # definir não cola nada
    res = [(p, lin, st) for p, lin, st in achados[2]]
    padroes = [p for p, _, _ in res]
    assert padroes == ["fixo", "rope_(?:0|1)_(?:0|1)", "id_(?:The_esp|the)", "(?:a|b)_tot",
                       "eq_x5", "longa", "(?:gqa|mha)_at", "z_.+?"]
    linhas = {p: (lin, st) for p, lin, st in res}
    assert linhas["rope_(?:0|1)_(?:0|1)"] == (4, (4, 4))
    assert linhas["(?:a|b)_tot"] == (8, (8, 8))             # a chamada de g, não o cola de dentro
    assert linhas["longa"] == (10, (10, 13))                # o comando inteiro, de 4 linhas
    fontes = {"__glue__": [(p, lin, f"código {lin}") for p, lin, _ in res]}
    for chave, linha in [("rope_1_0", 4), ("id_The_esp", 6), ("b_tot", 8), ("eq_x5", 9),
                         ("mha_at", 15), ("z_07", 16), ("fixo", 1)]:
        assert razao_pagina.onde_calcula(fontes, chave) == (linha, f"código {linha}"), chave
    assert razao_pagina.onde_calcula(fontes, "rope_2_0") == (None, "")


def _pedacos_fixos(padrao: str) -> list[str]:
    """Os pedaços escritos no código de um padrão de chave ("rope_(?:0|1)_.+?" -> ["rope_", "_"])."""
    return [re.sub(r"\\(.)", r"\1", p) for p in re.split(r"\(\?:[^)]*\)|\.\+\?", padrao) if p]


def test_cada_chave_colada_aponta_a_linha_que_a_cola():
    """A página de números mostra, para cada chave colada do lock, `página.md:linha` e o código;
    quem acha a linha é a leitura do código (razao_codigo.py, sem executar), a única fonte dela.
    A linha apontada tem mesmo a chamada que cola: `cola(`, `glue(` ou uma função da página que
    cola por dentro; e o comando mostrado tem cada pedaço fixo do nome da chave ("x5" em
    cola("x5", ...); "rope_" e "_" em cola(f"rope_{i}_{j}", ...))."""
    from myst_nb.core.read import read_myst_markdown_notebook

    erradas, total = [], 0
    for pagina, itens in razao.ler_lock().items():
        md = RAIZ / (pagina + ".md")
        texto = md.read_text(encoding="utf-8")
        linhas = texto.splitlines()
        fontes = razao_pagina.codigo_das_chaves(md)
        v = razao_codigo.Varredor()
        for cell in read_myst_markdown_notebook(texto).cells:
            if cell.cell_type == "code":
                v.celula(cell.source)
        chama = re.compile(r"\b(?:%s)\s*\(" % "|".join(razao_codigo.FUNCOES_COLA + tuple(v.funcoes)))
        for chave in itens:
            if chave.startswith(("celula:", "widget:")):
                continue
            total += 1
            linha, codigo = razao_pagina.onde_calcula(fontes, chave)
            if linha is None:
                erradas.append(f"{pagina} · {chave}: nenhuma linha")
                continue
            padroes = [p for p, lin, _ in fontes["__glue__"] if lin == linha and re.fullmatch(p, chave)]
            faltam = [x for x in _pedacos_fixos(padroes[0]) if x not in codigo] if padroes else ["?"]
            if not chama.search(linhas[linha - 1]) or faltam:
                erradas.append(f"{pagina}.md:{linha} · {chave}: {linhas[linha - 1].strip()[:80]!r}"
                               + (f" (sem {faltam})" if faltam else " (não cola)"))
    assert total > 900
    assert not erradas, f"{len(erradas)} de {total}:\n" + "\n".join(erradas[:30])


def test_padrao_mais_especifico_ganha():
    fontes = {"__glue__": [(".+?", 1, "a"), ("id_.+?", 2, "b"), ("id_(?:x|y)", 3, "c"), ("id_x", 4, "d")]}
    assert razao_pagina.onde_calcula(fontes, "id_x") == (4, "d")
    assert razao_pagina.onde_calcula(fontes, "id_y") == (3, "c")
    assert razao_pagina.onde_calcula(fontes, "id_z") == (2, "b")
    assert razao_pagina.onde_calcula(fontes, "w") == (1, "a")


def test_nao_travar_tira_chaves_de_funcoes_da_pagina(tmp_path):
    pasta = tmp_path / "_build" / "jupyter_execute" / "book"
    pasta.mkdir(parents=True)
    nb = {"cells": [
        _celula("def mede(nome):\n    cola(f'tempo_{nome}', time.time())", tags=["remove-cell"]),
        _celula("mede('total')", tags=["nao-travar"]),
        _celula("cola('fica', '1')", tags=["remove-cell"]),
    ], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (pasta / "pag.ipynb").write_text(json.dumps(nb))
    (pasta / "pag.glue.json").write_text(json.dumps({
        "tempo_total": {"data": {"text/plain": "1700000000.1"}}, "fica": {"data": {"text/plain": "'1'"}}}))
    assert razao.coletar(tmp_path / "_build") == {"book/pag": {"fica": "1"}}


def test_print_partido_em_dois_pedacos_da_a_mesma_razao():
    """Sob carga, um print pode chegar em dois pedaços de stream: a razão fica igual."""
    cel = {"cell_type": "code", "metadata": {}, "source": "print('a')"}
    inteiro = dict(cel, outputs=[{"output_type": "stream", "name": "stdout", "text": "x = 1\ny = 2\n"}])
    partido = dict(cel, outputs=[{"output_type": "stream", "name": "stdout", "text": "x = 1\n"},
                                 {"output_type": "stream", "name": "stdout", "text": "y = 2\n"}])
    a, _, _ = razao_texto.itens_do_notebook({"cells": [inteiro]}, {})
    b, _, _ = razao_texto.itens_do_notebook({"cells": [partido]}, {})
    assert a == b == {"celula:01.1": "x = 1\ny = 2"}


# ---------------------------------------------------------------------------
# Resíduos de arredondamento (o valor muda com a CPU): nunca no lock
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("valor,ruim", [
    ("5,0 · 10⁻¹⁶", True), ("10⁻¹⁶", True), ("2,2 · 10⁻¹³", True), ("10⁻¹²", False), ("10⁻⁵", False),
    ("4,7 · 10⁻⁴", False), ("6,7 · 10⁻⁶", False), ("5{,}0 \\cdot 10^{-16}", True), ("10^{-5}", False),
    ("erro: 2.220446049250313e-16", True), ("1e-5", False), ("y = 3,0 · 10²³", False),
    ("[-0,739; 1,411]", False)])
def test_residuo_reconhecido(valor, ruim):
    assert bool(razao_texto.residuos(valor)) is ruim


def _build_com_residuo(tmp_path, tags):
    pasta = tmp_path / "_build" / "jupyter_execute" / "book"
    pasta.mkdir(parents=True, exist_ok=True)
    nb = {"cells": [_celula('cola("dif", cientifico(d))', tags=tags),
                    _celula("print(erro)", [_stdout("erro máximo 3.3e-16\n")], tags=tags)],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (pasta / "pag.ipynb").write_text(json.dumps(nb))
    glue = {"dif": {"data": {"text/plain": "'5,0 · 10⁻¹⁶'"}}}
    (pasta / "pag.glue.json").write_text(json.dumps(glue))
    return tmp_path / "_build"


def test_residuo_derruba_gerar_com_pagina_chave_e_valor(tmp_path, capsys):
    build = _build_com_residuo(tmp_path, [])
    problemas = []
    razao.coletar(build, problemas=problemas)
    assert len(problemas) == 2
    assert problemas[0].startswith("book/pag · celula:02.1: parece um resíduo de arredondamento (3.3e-16")
    assert problemas[1].startswith("book/pag · dif: parece um resíduo de arredondamento (5,0 · 10⁻¹⁶")
    assert razao.main(["gerar", str(build)]) == 1
    assert "resíduo de arredondamento" in capsys.readouterr().out
    assert not (build / razao.NOME).exists()          # nada de razão quebrada


def test_constante_do_setup_pode_ser_minuscula(tmp_path):
    build = _build_com_residuo(tmp_path, ["constante"])
    problemas = []
    r = razao.coletar(build, problemas=problemas)
    assert problemas == []
    assert r["book/pag"]["dif"] == "5,0 · 10⁻¹⁶"


def test_lock_nao_tem_residuo():
    ruins = [f"{p} · {k}: {razao_texto.residuos(v)}" for p, itens in razao.ler_lock().items()
             for k, v in itens.items() if razao_texto.residuos(v)]
    assert ruins == []
