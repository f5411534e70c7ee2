"""Mutações de uma linha no brinquedo, no formatador e nos widgets: os testes e a trava pegam cada uma?

Cada mutação troca um trecho de um arquivo de `lab/` numa cópia temporária (uma constante,
um operador, um índice) e pergunta a dois juízes:

- os testes. Para o brinquedo, os testes dele (`tests/test_*brinquedo*.py`: também os que
  conferem os widgets com o brinquedo chamado direto); para
  `lab/livro/formato.py` e os widgets (`lab/livro/widgets/*.py`), os testes do `make check` (os que não
  precisam do build, os dos widgets primeiro) e, no formatador, os doctests dele;
- a trava (`book/numeros.lock.json`). Para o brinquedo e o formatador, a trava rápida
  (`python -m livro_ext.trava.rapido`): roda o código de todas as páginas com a cópia e compara cada
  número que o leitor vê. Para os widgets, só o estado inicial de cada widget de cada página
  (nenhuma página importa um módulo de widget: o resto da trava não muda), comparado com o lock.

Uma mutação "escapa" se nenhum dos dois a nota. O alvo: nenhuma escapa; as que a trava
pega e os testes não são números que o leitor vê sem teste próprio (o relatório mostra).

    python dev/mutacoes.py                      # o brinquedo, testes e trava
    python dev/mutacoes.py --alvo widgets       # os módulos dos widgets (formato; todos: os três)
    python dev/mutacoes.py --so-testes          # só os testes (segundos por mutação)
    python dev/mutacoes.py --testes-de main     # os testes do brinquedo como estão no ramo main
    python dev/mutacoes.py -k gelu              # só as mutações com "gelu" no nome
"""
from __future__ import annotations

import argparse
import os
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[1]
BRINQUEDO = RAIZ / "lab" / "livro" / "brinquedo.py"
PY = sys.executable

# (nome, trecho original, trecho mutado): o trecho aparece uma vez só em lab/livro/brinquedo.py.
MUTACOES = [
    ("gelu: K_GELU = 0.0447", "K_GELU = 0.044715", "K_GELU = 0.0447"),
    ("gelu: √(1/π) no lugar de √(2/π)", "C_GELU = math.sqrt(2 / math.pi)", "C_GELU = math.sqrt(1 / math.pi)"),
    ("gelu: 1 - tanh", "0.5 * z * (1 + math.tanh(", "0.5 * z * (1 - math.tanh("),
    ("LN: ε = 1e-3", "EPS = 1e-5", "EPS = 1e-3"),
    ("LN: variância com n - 1", "for x in v) / len(v) + EPS)", "for x in v) / (len(v) - 1) + EPS)"),
    ("LN: sem subtrair a média", "return [(x - mu) / s for x in v]", "return [x / s for x in v]"),
    ("atenção: escala d_h, não √d_h", "escala = math.sqrt(len(Qc[0]))", "escala = len(Qc[0])"),
    ("máscara: j < i (diagonal fora)", "(j <= i or not causal)", "(j < i or not causal)"),
    ("softmax: (x - m) * T", "math.exp((x - m) / T)", "math.exp((x - m) * T)"),
    ("bloco: h = a (sem residual)", "h = soma(X, a)                                       # (n, d)",
     "h = a                                                # (n, d)"),
    ("bloco: y = h - m", "y = soma(h, m)                                       # (n, d)",
     "y = [[p - q for p, q in zip(r, s)] for r, s in zip(h, m)]"),
    ("saída: sem a norma final", "y_chapeu = LN(y)                          # (n, d)",
     "y_chapeu = y                              # (n, d)"),
    ("embeddings: posição deslocada (pos + 1)", "return [soma(E[t], P[pos]) for pos, t in enumerate(ids)]",
     "return [soma(E[t], P[min(pos + 1, n_ctx - 1)]) for pos, t in enumerate(ids)]"),
    ("peso: E[␣no] = [0, 0, -1, 0.25]", "[0, 0, -1, 0.5],   # 1  ␣no", "[0, 0, -1, 0.25],  # 1  ␣no"),
    ("peso: W_U[0][9] = 0.959", "-0.24,  0.958, -0.666", "-0.24,  0.959, -0.666"),
    ("MLP: W1 = [I | I]", "(-1.0 if j == i + d else 0.0)", "(1.0 if j == i + d else 0.0)"),
    ("perdas: alvo ids[i], não ids[i + 1]", "[-math.log(p[i][ids[i + 1]])", "[-math.log(p[i][ids[i]])"),
    ("ranking: empate, maior id primeiro", "key=lambda i: (-p[i], i)", "key=lambda i: (-p[i], -i)"),
    ("top-k: k + 1", "ordem = ordem[:k]", "ordem = ordem[:k + 1]"),
    ("top-p: > no lugar de >=", "if acum >= top_p - 1e-12:", "if acum > top_p:"),
    ("top-p: sem a folga do arredondamento", "if acum >= top_p - 1e-12:", "if acum >= top_p:"),
    ("sorteio: u <= s", "if u < s:", "if u <= s:"),
    ("sorteio: u fora cai no primeiro", "    return ordem[-1]\n\n\ndef escolher", "    return ordem[0]\n\n\ndef escolher"),
    ("validação: u = 0 recusado", "0 <= u < 1", "0 < u < 1"),
    ("validação: top-p = 1 recusado", "0 < top_p <= 1)", "0 < top_p < 1)"),
    ("geração: para em n_ctx + 1", "if tok == EOT or len(seq) >= n_ctx:", "if tok == EOT or len(seq) > n_ctx:"),
    ("geração: p do passo com T", '"p": softmax(z)[tok]', '"p": det["p"][tok]'),
    ("cache de KV: posição pos - 1", "x = soma(E[token], P[pos])", "x = soma(E[token], P[pos - 1])"),
    ("cache de KV: K no lugar de V", "matmul([softmax(s)], cabeca(self.V, c))[0]",
     "matmul([softmax(s)], cabeca(self.K, c))[0]"),
    ("geração: o primeiro u em todo passo", "else us[min(n, len(us) - 1)]", "else us[0]"),
    ("simulador: escores sem máscara", "S = escores(Q, K)                                  # (3, 3)",
     "S = escores(Q, K, causal=False)                    # (3, 3)"),
]


# O formatador e os widgets: arquivo -> [(nome, trecho original, trecho mutado)], cada trecho uma
# vez só no seu arquivo.
MUTACOES_FORMATO = {"lab/livro/formato.py": [
    ("num: sem ponto de milhar", "    inteira = _milhar(inteira)\n", "    inteira = inteira\n"),
    ("num: ponto decimal", '("," + frac if frac else "")', '("." + frac if frac else "")'),
    ("num: volta o -0,000", 'if s.lstrip("-").strip("0.") == "":', "if False:"),
    ("milhar: grupos de 4", "while len(digitos) > 3:", "while len(digitos) > 4:"),
    ("inteiro: perde o sinal", 'return ("-" if n < 0 else "") + _milhar(str(abs(n)))', "return _milhar(str(abs(n)))"),
    ("pct: sem o × 100", 'return num(100 * x, casas) + "%"', 'return num(x, casas) + "%"'),
    ("vetor: vírgula entre as coordenadas", 'return "[" + "; ".join(num(x, casas) for x in v) + "]"',
     'return "[" + ", ".join(num(x, casas) for x in v) + "]"'),
    ("tex: vírgula sem {,}", 'return num(x, casas).replace(",", "{,}").replace("-", "{-}")',
     'return num(x, casas).replace("-", "{-}")'),
    ("casas_min: sobra a vírgula (2,)", 's = s.rstrip("0").rstrip(",")', 's = s.rstrip("0")'),
    ("cientifico: mantissa 1 não some", "return potencia if float(m) == 1 else", "return potencia if float(m) == 10 else"),
    ("cientifico: mantissa 10 (10,0 · 10²²)", "if abs(m) >= 10:", "if abs(m) > 10:"),
    ("abreviado: 1e9 vira 1.000M", "if abs(x) >= fator:", "if abs(x) > fator:"),
    ("pct_pequeno: corte em 0,1%", "return pct(x) if x >= 0.01 else", "return pct(x) if x >= 0.001 else"),
    ("bytes_bin: MiB decimal", '("MiB", 2 ** 20)', '("MiB", 10 ** 6)'),
    ("contagem: 0 no singular", "singular if n == 1 else", "singular if n <= 1 else"),
    ("celula: -∞ vira número", "if x == -math.inf:", "if x == math.inf:"),
]}

MUTACOES_WIDGETS = {
    "lab/livro/widgets/campos.py": [
        ("ler_inteiro: recusa a última opção", "not minimo <= v <= maximo", "not minimo <= v < maximo"),
        ("LIMITE = 10", "LIMITE = 1e6", "LIMITE = 10"),
        ("vírgula apagada (0,7 vira 7)", 't = t.replace(",", ".")', 't = t.replace(",", "")'),
        ("vazio opcional recusado", "            if opcional:\n", "            if False:\n"),
        ("contração: em a", '"a": "na"', '"a": "em a"'),
        ("marca sempre ligada", "return valor is True or", "return valor is not None or"),
        ("top-k 2,5 vira 2", "int(v) if v is not None and v == int(v) else v", "int(v) if v is not None else v"),
        ("casas: uma a mais", "            return k\n", "            return k + 1\n"),
        ("vazio vira 0", 'raise ErroEntrada(f"Preencha {rotulo}: o campo está vazio.")', "return 0.0"),
        ("sem o menos tipográfico (−2)", 't = s.replace(" ", "").replace("−", "-")', 't = s.replace(" ", "")'),
        ("1_000 aceito", '            t = "?"\n', "            pass\n"),
        ("marca vira número", "if isinstance(valor, bool):", "if isinstance(valor, bytes):"),
    ],
    "lab/livro/widgets/geracao.py": [
        ("cache de KV: devolve os logits velhos", "        z = cache.adiciona(ids[-1])\n",
         "        z = cache.adiciona(ids[-1]) and guardado[1]\n"),
        ("cache de KV: qualquer cache serve", "if guardado and guardado[0].ids == ids:", "if guardado:"),
        ("saída: p sem o softmax", "p = b.softmax(z)                    # (V,)", "p = list(z)                         # (V,)"),
        ("saída: a primeira linha de z", 'z = r["z"][-1]                      # (V,)', 'z = r["z"][0]                       # (V,)'),
        ("saída: ordem crescente", "key=lambda i: (-p[i], -z[i], i)", "key=lambda i: (p[i], -z[i], i)"),
        ("saída: o prompt ignorado", "r = modelo_prompt(atencao) if ids == b.IDS_PROMPT else b.modelo(ids, atencao)",
         "r = modelo_prompt(atencao)"),
        ("eco: 10⁻⁴ vira 0", "if abs(x) < 1e-3 or abs(x) >= 1e6:", "if abs(x) < 1e-6 or abs(x) >= 1e6:"),
        ("eco: três casas só (0,9999 vira 1)", "for casas in range(3, 18):", "for casas in range(3, 4):"),
        ("anexar ignora u", "anexado, _ = b.escolher(z, T, k, top_p, u)", "anexado, _ = b.escolher(z, T, k, top_p, None)"),
        ("q mostra p", 'q = dict(zip(mantidos, det["q"]))', 'q = dict(zip(mantidos, det["p"]))'),
        ("tabela fora de ordem", 'for i in b.ranking(det["p"]):', "for i in range(b.V):"),
        ("destaca sempre o primeiro", '"lw-escolhido" if i == escolhido', '"lw-escolhido" if i == mantidos[0]'),
    ],
    "lab/livro/widgets/escala.py": [
        ("MHA com os pares K/V da GQA", 'n_kv = nq if c["atencao"] == "mha" else base["n_kv"]', 'n_kv = base["n_kv"]'),
        ("vieses ignorados", 'p = arq.params_bloco(d, nq, n_kv, c["mlp"], vieses, c["norma"])',
         'p = arq.params_bloco(d, nq, n_kv, c["mlp"], True, c["norma"])'),
        ("D = C / N", "D = C / (arq.FLOPS_TREINO * N)", "D = C / N"),
        ("ajuste ignorado na perda", "L_N = arq.perda(N, D, aj)", "L_N = arq.perda(N, D)"),
        ("166.666,7T de volta", "return abreviado(x) if abs(x) < 1e15 else cientifico(x)",
         "return abreviado(x) if abs(x) < 1e18 else cientifico(x)"),
        ("N lido de logS", "C, N = 10 ** logC, 10 ** logN", "C, N = 10 ** logC, 10 ** logS"),
        ("ótimo sem o ajuste", "ot = arq.otimo_chinchilla(C, aj)", "ot = arq.otimo_chinchilla(C)"),
        ("0 tokens por parâmetro", "if r >= 1e4 or r < 1e-3:", "if r >= 1e4:"),
        ("sempre pré-LN", 'pre = c["norma_pos"] == "pre"', "pre = True"),
        ("cache de KV com MHA sempre", 'kv = arq.cache_kv_bytes(base["n_camadas"], n_kv, d_h',
         'kv = arq.cache_kv_bytes(base["n_camadas"], nq, d_h'),
        ("fração da atenção = a do MLP", "f\"e a atenção com {pct(p['frac_atencao'])}.\"",
         "f\"e a atenção com {pct(p['frac_mlp'])}.\""),
        ("escolha inválida aceita", "if c.get(campo) not in validos:", "if c.get(campo) in ():"),
    ],
    "lab/livro/widgets/html.py": [
        ("escape: sem &lt;", '"<": "&lt;", ', ""),
        ("escape: sem &quot;", '\'"\': "&quot;", ', ""),
        ("matriz: rótulo da 1ª linha em todas", "out.append(f'<th scope=\"row\">{escapa(linhas[i])}</th>')",
         "out.append(f'<th scope=\"row\">{escapa(linhas[0])}</th>')"),
        ("células com 2 casas", "return [[celula(x, casas) for x in linha] for linha in M]",
         "return [[celula(x, 2) for x in linha] for linha in M]"),
        ("barras: só o primeiro texto", 'out += [f"<td>{escapa(t)}</td>" for t in textos]',
         'out += [f"<td>{escapa(t)}</td>" for t in textos[:1]]'),
        ("lista: nenhuma opção escolhida", '{" selected" if str(v) == str(valor) else ""}',
         '{" selected" if v == valor else ""}'),
        ("rádio invertido", "f'{\" checked\" if str(v) == str(valor) else \"\"} disabled><span>",
         "f'{\" checked\" if str(v) != str(valor) else \"\"} disabled><span>"),
        ("marca invertida", '{" checked" if ligado else ""}', '{" checked" if not ligado else ""}'),
        ("sem subscritos", 'str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")', 'str.maketrans("0123456789", "0123456789")'),
        ("token trocado", "return b.VOCAB[i]", "return b.VOCAB[i - 1]"),
        ("sem escape nenhum", "return str(s).translate(_ESCAPA)", "return str(s)"),
    ],
    "lab/livro/widgets/api.py": [
        ("ações ignoradas", "= calcula(campos, acao, inst if", "= calcula(campos, None, inst if"),
        ("cache de KV nunca reaproveitado", "inst if isinstance(inst, str) else None)", "None)"),
        ("título: 11 probabilidades", 'f"A temperatura e as {b.V} probabilidades"', 'f"A temperatura e as {b.V - 1} probabilidades"'),
        ("mensagem sem encurtar", 'return t[:40] + "…" if len(t) > 41 else t', "return t"),
        ("só ErroEntrada tem mensagem própria", "except ValueError as e:", "except ErroEntrada as e:"),
        ("mensagem perdida", 'return {"erro": _curta(str(e))}', 'return {"erro": "Entrada inválida."}'),
        ("título com o nome interno", "Experimente · {titulo}</p>", "Experimente · {nome}</p>"),
        ("estado inicial com a ação 'tudo'", "calcula(padrao(), None, None)", 'calcula(padrao(), "tudo", None)'),
        ("widget desconhecido aceito", "if not isinstance(nome, str) or nome not in WIDGETS:",
         "if not isinstance(nome, str):"),
        ("campos do leitor ignorados", 'enviados = pedido.get("campos") or {}', "enviados = {}"),
    ],
    "lab/livro/widgets/passos.py": [
        ("embeddings: P[pos]", "e, p = b.E[t], b.P[pos - 1]", "e, p = b.E[t], b.P[pos]"),
        ("embeddings: E + E", "x = b.soma(e, p)", "x = b.soma(e, e)"),
        ("qkv: sem a LN", "u = b.ln_linha(x)      ", "u = x                 "),
        ("qkv: K com W_Q", "for W in (b.W_Q, b.W_K, b.W_V))", "for W in (b.W_Q, b.W_Q, b.W_V))"),
        ("qkv: a linha seguinte", 'modelo_prompt()["X"][i - 1]', 'modelo_prompt()["X"][i]'),
        ("máscaras: cabeça sem o - 1", '"a cabeça", 1, b.n_cabecas) - 1', '"a cabeça", 1, b.n_cabecas)'),
        ("máscaras: a marca ignorada", "r = modelo_prompt(True, causal)", "r = modelo_prompt(True, True)"),
        ("bloco: sempre com atenção", "r = b.mini_bloco(x, com)", "r = b.mini_bloco(x, True)"),
        ("bloco: avançar sem parar", "passo = min(len(PASSOS_BLOCO), passo + 1)", "passo = passo + 1"),
        ("cache do prompt sem a máscara", "b.modelo(b.IDS_PROMPT, com_atencao, causal)", "b.modelo(b.IDS_PROMPT, com_atencao)"),
        ("caso sem atenção com atenção", "c.update(_grade(x_caso), com_atencao=at_caso, caso=nome)",
         "c.update(_grade(x_caso), caso=nome)"),
        ("caso 'só o último': outro x", "NOVA_LINHA_3 = [2, -1, 0, 1]", "NOVA_LINHA_3 = [2, -1, 0, 2]"),
    ],
}
ALVOS = {"formato": MUTACOES_FORMATO, "widgets": MUTACOES_WIDGETS}
IGNORAR = shutil.ignore_patterns(".git", ".venv", "node_modules", "_build", "__pycache__", ".pytest_cache",
                                 "*.ipynb", ".ruff_cache")


def prepara_repo(tmp: Path) -> Path:
    """Uma cópia do repositório (sem build, .git e ambientes; .venv e node_modules por link)."""
    repo = tmp / "repo"
    shutil.copytree(RAIZ, repo, ignore=IGNORAR)
    for nome in (".venv", "node_modules"):
        if (RAIZ / nome).exists():
            (repo / nome).symlink_to(RAIZ / nome)
    # o notebook do laboratório é gerado de laboratorio_gpt2.py, mas as páginas podem lê-lo
    for nb in RAIZ.glob("lab/*.ipynb"):
        shutil.copy2(nb, repo / "lab" / nb.name)
    return repo


def roda_testes_check(repo: Path, arquivo: str) -> tuple[bool, str]:
    """(pegou?, primeira falha) dos testes do make check (os dos widgets primeiro) e, para o
    formatador, dos doctests dele, contra a cópia."""
    if arquivo.endswith("formato.py"):
        r = subprocess.run([PY, "-m", "doctest", "livro/formato.py"], cwd=repo / "lab", capture_output=True,
                           text=True, timeout=120, check=False, env=dict(os.environ, PYTHONPATH=str(repo / "lab")))
        if r.returncode != 0:
            return True, "doctest de formato.py"
    # Em duas rodadas: primeiro os testes leves (widgets, brinquedo, formatador), depois o resto
    # (o resto importa o torch: só vale a pena quando os leves não pegaram).
    leves = [p for p in sorted((repo / "tests").glob("test_*.py"))
             if p.name.startswith(("test_widgets_", "test_recusa", "test_numeros")) or p.name == "test_brinquedo.py"]
    leves.sort(key=lambda p: not p.name.startswith("test_widgets_"))
    resto = [p for p in sorted((repo / "tests").glob("test_*.py")) if p not in leves]
    for grupo in (leves, resto):
        r = subprocess.run([PY, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "--no-header", "-p",
                            "no:warnings", "-m", "not build and not lento", *map(str, grupo)], cwd=repo,
                           capture_output=True, text=True, timeout=900, check=False,
                           env=dict(os.environ, PYTHONPATH=str(repo / "lab")))
        if r.returncode not in (0, 5):          # 5: nenhum teste escolhido no grupo
            falha = next((ln for ln in r.stdout.splitlines() if ln.startswith("FAILED")), "")
            return True, (falha.removeprefix("FAILED ") or r.stdout.strip()[-100:])[:100]
    return False, ""


# Roda na cópia: o estado inicial de cada widget de cada página, como rapido.py o monta.
_WIDGETS_DA_TRAVA = """
import json, sys
from pathlib import Path
raiz = Path(sys.argv[1])
from livro_ext.trava import razao, razao_codigo, razao_texto, rapido   # o livro vem da cópia (PYTHONPATH)
from livro.widgets import api as widgets_api
lock = razao.ler_lock(raiz / "book" / "numeros.lock.json")
difs = []
for md in rapido.paginas(raiz):
    pagina = md.with_suffix("").relative_to(raiz).as_posix()
    html = []
    for _, nome, vez, _ in razao_codigo.widgets_no_fonte(md.read_text(encoding="utf-8")):
        try:
            html.append(widgets_api.widget_html(nome, widgets_api.id_do_widget(nome, vez)))
        except Exception as e:
            difs.append(f"! {pagina} · widget:{nome}: {type(e).__name__}: {e}")
    novos = razao_texto.widgets_no_html("".join(html))
    velhos = {k: v for k, v in lock.get(pagina, {}).items() if k.startswith("widget:")}
    for k in sorted(set(novos) | set(velhos)):
        if novos.get(k) != velhos.get(k):
            difs.append(f"~ {pagina} · {k}")
print(json.dumps(difs, ensure_ascii=False))
"""


def roda_trava_copia(repo: Path, arquivo: str) -> tuple[bool, list[str]]:
    """(pegou?, linhas de diferença) da trava na cópia: só os widgets, para um módulo de widget;
    a trava rápida inteira (todas as páginas), para o formatador."""
    copia = dict(os.environ, PYTHONPATH=str(repo / "lab"))   # o pacote livro da cópia, com a mutação
    if "/widgets/" in arquivo:
        r = subprocess.run([PY, "-c", _WIDGETS_DA_TRAVA, str(repo)], capture_output=True, text=True,
                           timeout=300, check=False, env=copia)
        if r.returncode != 0:
            return True, [f"! a trava dos widgets não rodou: {(r.stderr or r.stdout).strip()[-200:]}"]
        linhas = json.loads(r.stdout)
        return bool(linhas), linhas
    r = subprocess.run([PY, "-m", "livro_ext.trava.rapido"], cwd=repo, capture_output=True,
                       text=True, timeout=1800, check=False, env=copia)
    linhas = [ln.strip() for ln in r.stdout.splitlines()[1:] if ln.strip()]
    return r.returncode != 0, linhas or [r.stdout.strip()[-200:]]


def main_outros(a, mutacoes: dict) -> int:
    """As mutações do formatador ou dos widgets, com os testes do make check e a trava."""
    escolhidas = [(arq, *m) for arq, ms in mutacoes.items() for m in ms if a.k.lower() in m[0].lower()]
    originais = {arq: (RAIZ / arq).read_text(encoding="utf-8") for arq in mutacoes}
    for arq, _, antes, depois in escolhidas:    # todas válidas antes de começar
        aplica(originais[arq], antes, depois, arq)
    print(f"{len(escolhidas)} mutações em {', '.join(sorted({m[0] for m in escolhidas}))}; testes do make check"
          + ("" if a.so_testes else "; trava"))
    with tempfile.TemporaryDirectory(prefix="mut-") as t:
        repo = prepara_repo(Path(t))
        arq0 = escolhidas[0][0] if escolhidas else "lab/livro/formato.py"
        pegou, falha = roda_testes_check(repo, arq0)
        if pegou:
            raise SystemExit(f"os testes falham sem mutação nenhuma: {falha}")
        if not a.so_testes:
            pegou, linhas = roda_trava_copia(repo, arq0)
            if pegou:
                raise SystemExit("a trava acusa diferença sem mutação:\n" + "\n".join(linhas[:20]))
        pelos_testes = pela_trava = escapam = 0
        t0 = time.time()
        por_arquivo: dict = {}
        for arq, nome, antes, depois in escolhidas:
            (repo / arq).write_text(aplica(originais[arq], antes, depois, arq), encoding="utf-8")
            try:
                pt, falha = roda_testes_check(repo, arq)
                pl, linhas = (False, []) if a.so_testes else roda_trava_copia(repo, arq)
            finally:
                (repo / arq).write_text(originais[arq], encoding="utf-8")
            pelos_testes += pt
            pela_trava += pl
            escapam += not (pt or pl)
            placar = por_arquivo.setdefault(arq, [0, 0, 0, 0])
            placar[0] += 1
            placar[1] += pt
            placar[2] += pl
            placar[3] += pt or pl
            onde = []
            if pt:
                onde.append(f"testes ({falha.split('::')[-1][:60]})")
            if pl:
                onde.append(f"trava ({len(linhas)} diferenças, ex.: {linhas[0][:60]})")
            marca = "ESCAPA" if not (pt or pl) else "pega  "
            print(f"  {marca} {Path(arq).name}: {nome}: {'; '.join(onde) or 'ninguém nota'}", flush=True)
    n = len(escolhidas)
    print()
    for arq, (m, pt, pl, algum) in por_arquivo.items():
        print(f"{arq}: {m} mutações; testes {pt}" + ("" if a.so_testes else f", trava {pl}, um ou outro {algum}"))
    print(f"Testes pegam {pelos_testes} de {n}.")
    if not a.so_testes:
        print(f"Trava pega {pela_trava} de {n}.")
        print(f"Testes ou trava pegam {n - escapam} de {n} ({time.time() - t0:.0f} s).")
    return 1 if escapam else 0


def aplica(texto: str, antes: str, depois: str, arquivo: str = "lab/livro/brinquedo.py") -> str:
    n = texto.count(antes)
    if n != 1:
        raise SystemExit(f"mutação inválida: {antes!r} aparece {n} vezes em {arquivo}")
    return texto.replace(antes, depois)


def _arquivos_de_teste(ref: str | None) -> dict[str, str]:
    """{nome: conteúdo} dos testes do brinquedo (do disco, ou de um ramo do git)."""
    if ref is None:
        return {p.name: p.read_text(encoding="utf-8") for p in sorted((RAIZ / "tests").glob("test_*brinquedo*.py"))}
    nomes = subprocess.run(["git", "ls-tree", "--name-only", ref, "tests/"], cwd=RAIZ, check=True,
                           capture_output=True, text=True).stdout.split()
    res = {}
    for n in nomes:
        if Path(n).name.startswith("test_") and "brinquedo" in Path(n).name and n.endswith(".py"):
            res[Path(n).name] = subprocess.run(["git", "show", f"{ref}:{n}"], cwd=RAIZ, check=True,
                                               capture_output=True, text=True).stdout
    return res


def prepara(tmp: Path, testes: dict[str, str]):
    """Uma cópia mínima: lab/ (onde a mutação entra) e os testes do brinquedo."""
    shutil.copytree(RAIZ / "lab", tmp / "lab", ignore=shutil.ignore_patterns("__pycache__", "*.ipynb"))
    (tmp / "tests").mkdir()
    for nome, texto in testes.items():
        (tmp / "tests" / nome).write_text(texto, encoding="utf-8")


def roda_testes(tmp: Path) -> tuple[bool, str]:
    """(pegou?, primeira falha) dos testes do brinquedo contra a cópia."""
    r = subprocess.run([PY, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "--no-header",
                        "--rootdir", str(tmp), "tests"], cwd=tmp, capture_output=True, text=True,
                       timeout=600, check=False,
                       # o pacote livro da cópia (com a mutação) na frente do instalado
                       env=dict(os.environ, PYTHONPATH=str(tmp / "lab")))
    falha = next((ln for ln in r.stdout.splitlines() if ln.startswith("FAILED")), "")
    return r.returncode != 0, falha.removeprefix("FAILED ")[:100]


def roda_trava(brinquedo: Path, sem_widgets=False) -> tuple[bool, list[str]]:
    """(pegou?, linhas de diferença) da trava rápida com o brinquedo mudado.
    sem_widgets: como era a trava antes de cobrir os widgets (para comparar)."""
    from livro_ext.trava import rapido

    res = rapido.executar(rapido.paginas(), str(brinquedo))
    linhas = rapido.comparar(res)
    if sem_widgets:
        linhas = [ln for ln in linhas if " · widget:" not in ln]
    return bool(linhas), linhas


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--so-testes", action="store_true", help="não roda a trava rápida")
    ap.add_argument("--testes-de", metavar="REF", help="os testes do brinquedo de um ramo do git")
    ap.add_argument("--sem-widgets", action="store_true",
                    help="ignora os widgets na trava (como ela era antes de cobri-los)")
    ap.add_argument("--antes", metavar="REF",
                    help="também o placar de antes: os testes de REF e a trava sem os widgets")
    ap.add_argument("-k", default="", help="só mutações com este trecho no nome")
    ap.add_argument("--alvo", choices=["brinquedo", "formato", "widgets", "todos"], default="brinquedo",
                    help="que arquivo mutar (padrão: o brinquedo)")
    a = ap.parse_args(argv)
    if a.alvo != "brinquedo":
        ret = 0
        for alvo in (["formato", "widgets"] if a.alvo == "todos" else [a.alvo]):
            ret |= main_outros(a, ALVOS[alvo])
        if a.alvo != "todos":
            return ret
        print()
    original = BRINQUEDO.read_text(encoding="utf-8")
    escolhidas = [m for m in MUTACOES if a.k.lower() in m[0].lower()]
    for _, antes, depois in escolhidas:     # todas válidas antes de começar
        aplica(original, antes, depois)
    testes = _arquivos_de_teste(a.testes_de)
    print(f"{len(escolhidas)} mutações; testes: {', '.join(testes)}"
          + (f" (de {a.testes_de})" if a.testes_de else "") + ("" if a.so_testes else "; trava rápida"))
    # sem mutação, tudo tem de passar (senão a contagem não diz nada)
    with tempfile.TemporaryDirectory(prefix="mut-") as t:
        tmp = Path(t)
        prepara(tmp, testes)
        ok_testes, falha = roda_testes(tmp)
        if ok_testes:
            raise SystemExit(f"os testes falham sem mutação nenhuma: {falha}")
        if not a.so_testes:
            pegou, linhas = roda_trava(tmp / "lab" / "livro" / "brinquedo.py", a.sem_widgets)
            if pegou:
                raise SystemExit("a trava rápida acusa diferença sem mutação:\n" + "\n".join(linhas[:20]))
    testes_antes = _arquivos_de_teste(a.antes) if a.antes else None
    placar0 = {"testes": 0, "trava": 0, "algum": 0}
    pelos_testes = pela_trava = escapam = 0
    t0 = time.time()
    for nome, antes, depois in escolhidas:
        with tempfile.TemporaryDirectory(prefix="mut-") as t:
            tmp = Path(t)
            prepara(tmp, testes)
            (tmp / "lab" / "livro" / "brinquedo.py").write_text(aplica(original, antes, depois), encoding="utf-8")
            pt, falha = roda_testes(tmp)
            pl, linhas = (False, []) if a.so_testes else roda_trava(tmp / "lab" / "livro" / "brinquedo.py", a.sem_widgets)
            if testes_antes is not None:
                shutil.rmtree(tmp / "tests")
                (tmp / "tests").mkdir()
                for nome_t, texto in testes_antes.items():
                    (tmp / "tests" / nome_t).write_text(texto, encoding="utf-8")
                pt0, _ = roda_testes(tmp)
                pl0 = any(" · widget:" not in ln for ln in linhas)
                placar0["testes"] += pt0
                placar0["trava"] += pl0
                placar0["algum"] += pt0 or pl0
        pelos_testes += pt
        pela_trava += pl
        escapam += not (pt or pl)
        marca = "ESCAPA" if not (pt or pl) else "pega  "
        onde = []
        if pt:
            onde.append(f"testes ({falha.split('::')[-1][:50]})")
        if pl:
            onde.append(f"trava ({len(linhas)} diferenças, ex.: {linhas[0][:60]})")
        print(f"  {marca} {nome}: {'; '.join(onde) or 'ninguém nota'}", flush=True)
    n = len(escolhidas)
    print(f"\nTestes do brinquedo pegam {pelos_testes} de {n}.")
    if not a.so_testes:
        print(f"Trava rápida pega {pela_trava} de {n}.")
        print(f"Testes ou trava pegam {n - escapam} de {n} ({time.time() - t0:.0f} s).")
    if testes_antes is not None:
        print(f"Antes ({a.antes}): testes pegam {placar0['testes']} de {n}"
              + ("" if a.so_testes else f"; trava sem widgets {placar0['trava']}; um ou outro {placar0['algum']}")
              + ".")
    return 1 if escapam else 0


if __name__ == "__main__":
    sys.exit(main())
