"""Os widgets do livro: o que cada um mostra, calculado pelo brinquedo.

Este arquivo não refaz conta nenhuma do modelo: chama `brinquedo.py` (e
`arquitetura.py`) e só transforma os resultados em HTML, com os números
formatados por `formato.py`. Ele roda em dois lugares, com o mesmo código:

- no build: a diretiva ``{widget} nome`` chama `widget_html(nome)`, e a página
  já sai com os números (quem lê sem JavaScript vê o widget parado, mas certo);
- no navegador: o worker do Pyodide chama `responder_json(pedido)` a cada
  mudança de um controle e devolve o HTML novo.

Um pedido é ``{"widget": nome, "campos": {nome: valor}, "acao": str | None,
"inst": id}``; a resposta é ``{"html", "campos", "desligar"}`` ou ``{"erro"}``,
com a mensagem em português. Nada aqui pode derrubar a página: toda exceção
vira uma mensagem.
"""

import json
import math

import brinquedo as b
from formato import abreviado, casas_min, celula, cientifico, inteiro, num, pct, pct_pequeno, vetor

try:  # as contas de arquitetura e escala (páginas "desde 2017" e "escala")
    import arquitetura as arq
except ImportError:  # pragma: no cover - o livro sempre tem o arquivo
    arq = None


class ErroEntrada(ValueError):
    """Entrada que o leitor digitou e que não dá para usar (mensagem em português)."""


_ESCAPA = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;"})


def _e(s):
    """O mesmo que html.escape(s, quote=True), sem importar `html` no navegador."""
    return str(s).translate(_ESCAPA)


def _sub(s):
    """Índices como subscrito: 'x' + '23' -> x₂₃ (só dígitos)."""
    return str(s).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


# ---------------------------------------------------------------------------
# Ler o que o leitor digitou
# ---------------------------------------------------------------------------
def ler_num(valor, rotulo, opcional=False):
    """'0,7' ou '0.7' -> 0.7; vazio -> None (se opcional) ou erro; letras -> erro."""
    if isinstance(valor, bool):
        raise ErroEntrada(f"Valor inválido em {rotulo}.")
    if isinstance(valor, (int, float)):
        v = float(valor)
    else:
        s = "" if valor is None else str(valor).strip()
        if s == "":
            if opcional:
                return None
            raise ErroEntrada(f"Preencha {rotulo}: o campo está vazio.")
        t = s.replace(" ", "").replace("−", "-")
        if "," in t:
            if "." in t or t.count(",") > 1:
                raise ErroEntrada(f"«{s}» não é um número: em {rotulo}, use uma vírgula só, como em 0,7.")
            t = t.replace(",", ".")
        if "_" in t:
            t = "?"
        try:
            v = float(t)
        except ValueError:
            raise ErroEntrada(f"«{s}» não é um número: em {rotulo}, escreva algo como 0,7.") from None
    if not math.isfinite(v):
        raise ErroEntrada(f"Em {rotulo}, use um número finito.")
    return v


def ler_inteiro(valor, rotulo, minimo, maximo):
    """Para escolhas de lista (token, posição, cabeça): inteiro entre minimo e maximo."""
    v = ler_num(valor, rotulo)
    if v != int(v) or not minimo <= v <= maximo:
        raise ErroEntrada(f"Em {rotulo}, escolha um inteiro de {minimo} a {maximo}.")
    return int(v)


def _inteiro_se_der(v):
    return int(v) if v is not None and v == int(v) else v


def _ligado(valor):
    return valor is True or str(valor).lower() in ("1", "true", "on", "sim")


def _casas(valores, maximo=3):
    """Menos casas que mostram todos os valores exatos (pesos como 0,5 e -2)."""
    for k in range(maximo + 1):
        if all(abs(round(x, k) - x) < 1e-12 for x in valores):
            return k
    return maximo



# ---------------------------------------------------------------------------
# Peças de HTML
# ---------------------------------------------------------------------------

def formata(M, casas=3):
    """Cada célula como o leitor a vê."""
    return [[celula(x, casas) for x in linha] for linha in M]


def matriz(M, casas=3, linhas=None, cols=None, foco=None, mudou=None, calor=False,
           legenda=None, mascara=None, txt=None):
    """Uma matriz como tabela. foco: linha destacada; mudou: células (i, j) que mudaram;
    calor: fundo proporcional ao valor (pesos de 0 a 1); mascara: células bloqueadas;
    txt: as células já formatadas (senão, `casas` decimais)."""
    txt = formata(M, casas) if txt is None else txt
    out = ['<table class="lw-matriz">']
    if legenda:
        out.append(f"<caption>{legenda}</caption>")
    if cols:
        out.append("<thead><tr>" + ("<td></td>" if linhas else "")
                   + "".join(f'<th scope="col">{_e(c)}</th>' for c in cols) + "</tr></thead>")
    out.append("<tbody>")
    for i, linha in enumerate(M):
        cls = ' class="lw-foco"' if foco == i else ""
        out.append(f"<tr{cls}>")
        if linhas:
            out.append(f'<th scope="row">{_e(linhas[i])}</th>')
        for j, x in enumerate(linha):
            c = []
            estilo = ""
            if mudou and (i, j) in mudou:
                c.append("lw-mudou")
            if (mascara and mascara(i, j)) or x == -math.inf:
                c.append("lw-mascarado")
            elif calor:
                estilo = f' style="--p:{max(0.0, min(1.0, x)):.3f}"'
                c.append("lw-calor")
            cc = f' class="{" ".join(c)}"' if c else ""
            out.append(f"<td{cc}{estilo}>{txt[i][j]}</td>")
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def barras(itens, cabecalho):
    """Barras horizontais: itens = [(rótulo, fração 0..1, [textos simples], classe)]."""
    out = ['<table class="lw-barras"><thead><tr>']
    out += [f'<th scope="col">{_e(h)}</th>' for h in cabecalho]
    out.append("</tr></thead><tbody>")
    for rotulo, frac, textos, classe in itens:
        cls = f' class="{classe}"' if classe else ""
        out.append(f'<tr{cls}><th scope="row">{_e(rotulo)}</th>'
                   f'<td class="lw-barra-cel"><span class="lw-barra" style="--p:{max(0.0, min(1.0, frac)):.4f}">'
                   f"</span></td>")
        out += [f"<td>{_e(t)}</td>" for t in textos]
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _campo_texto(nome, rotulo, valor, largura=6, dica=None):
    d = f' title="{_e(dica)}"' if dica else ""
    return (f'<label class="lw-campo"{d}><span>{rotulo}</span>'
            f'<input type="text" name="{nome}" value="{_e(valor)}" size="{largura}" '
            f'inputmode="decimal" autocomplete="off" spellcheck="false" disabled></label>')


def _campo_lista(nome, rotulo, opcoes, valor, acao=None):
    a = f' data-acao="{acao}"' if acao else ""
    ops = "".join(f'<option value="{_e(v)}"{" selected" if str(v) == str(valor) else ""}>{_e(t)}</option>'
                  for v, t in opcoes)
    return (f'<label class="lw-campo"><span>{rotulo}</span>'
            f'<select name="{nome}"{a} disabled>{ops}</select></label>')


def _campo_marca(nome, rotulo, ligado):
    return (f'<label class="lw-campo lw-marca"><input type="checkbox" name="{nome}"'
            f'{" checked" if ligado else ""} disabled><span>{rotulo}</span></label>')


def _campo_faixa(nome, rotulo, valor, minimo, maximo, passo, espelho=None):
    esp = f' data-espelho="{espelho}"' if espelho else ""
    return (f'<label class="lw-campo lw-faixa"><span>{rotulo}</span>'
            f'<input type="range" name="{nome}" min="{minimo}" max="{maximo}" step="{passo}" '
            f'value="{valor}"{esp} disabled></label>')


def _radios(nome, rotulo, opcoes, valor):
    itens = "".join(
        f'<label class="lw-radio"><input type="radio" name="{nome}" value="{_e(v)}"'
        f'{" checked" if str(v) == str(valor) else ""} disabled><span>{_e(t)}</span></label>'
        for v, t in opcoes)
    return f'<fieldset class="lw-grupo"><legend>{rotulo}</legend>{itens}</fieldset>'


def _botao(texto, acao=None, principal=False):
    if acao is None:
        return f'<button type="submit" class="lw-botao lw-principal" disabled>{texto}</button>'
    cls = "lw-botao lw-principal" if principal else "lw-botao"
    return f'<button type="button" class="{cls}" data-acao="{acao}" disabled>{texto}</button>'


def _oculto(nome, valor):
    return f'<input type="hidden" name="{nome}" value="{_e(valor)}">'


def _linha(*pecas, classe="lw-controles"):
    return f'<div class="{classe}">' + "".join(pecas) + "</div>"


def _nota(texto, classe="lw-nota"):
    return f'<p class="{classe}">{texto}</p>'


def _tok(i):
    return b.VOCAB[i]


# ---------------------------------------------------------------------------
# O prompt do livro, calculado uma vez
# ---------------------------------------------------------------------------
_CACHE = {}


def _modelo(com_atencao=True, causal=True):
    chave = ("modelo", com_atencao, causal)
    if chave not in _CACHE:
        _CACHE[chave] = b.modelo(b.IDS_PROMPT, com_atencao, causal)
    return _CACHE[chave]


_TOKENS_PROMPT = [_tok(i) for i in b.IDS_PROMPT]


# ---------------------------------------------------------------------------
# Passo 1: tokens
# ---------------------------------------------------------------------------
def _tokens_padrao():
    return {"texto": b.PROMPT}


def _tokens_form(c):
    return _linha(
        f'<label class="lw-campo lw-largo"><span>Frase</span><input type="text" name="texto" '
        f'value="{_e(c["texto"])}" autocomplete="off" spellcheck="false" disabled></label>',
        _botao("Tokenizar"))


def _tokens(c, acao, inst):
    toks = b.tokenizar(c.get("texto", ""))
    ids = b.codificar(c.get("texto", ""))
    chips = "".join(f'<li class="lw-token"><span class="lw-token-texto">{_e(t)}</span>'
                    f'<span class="lw-token-id">{inteiro(i)}</span></li>' for t, i in zip(toks, ids))
    out = [f'<ol class="lw-tokens" aria-label="tokens e ids">{chips}</ol>',
           _nota(f"ids = [{', '.join(inteiro(i) for i in ids)}] · {inteiro(len(ids))} "
                 f"{'token' if len(ids) == 1 else 'tokens'}"),
           _nota(f"De volta ao texto: <code>decodificar(ids)</code> = «{_e(b.decodificar(ids))}»")]
    if len(ids) > b.n_ctx:
        out.append(_nota(f"São {inteiro(len(ids))} tokens, e o brinquedo conhece só {inteiro(b.n_ctx)} "
                         "posições: o modelo não leria o resto.", "lw-aviso"))
    return "".join(out), c, []


# ---------------------------------------------------------------------------
# Passo 2: embeddings
# ---------------------------------------------------------------------------
def _emb_padrao():
    return {"token": str(b.IDS_PROMPT[-1]), "posicao": str(len(b.IDS_PROMPT))}


def _emb_form(c):
    return _linha(
        _campo_lista("token", "Token", [(i, f"{t} (id {i})") for i, t in enumerate(b.VOCAB)], c["token"]),
        _campo_lista("posicao", "Posição", [(p, str(p)) for p in range(1, b.n_ctx + 1)], c["posicao"]))


def _embeddings(c, acao, inst):
    t = ler_inteiro(c.get("token"), "o token", 0, b.V - 1)
    pos = ler_inteiro(c.get("posicao"), "a posição", 1, b.n_ctx)
    e, p = b.E[t], b.P[pos - 1]
    x = b.soma(e, p)                        # (d,)
    k = _casas(e + p + x)
    tab = matriz([e, p, x], k,
                 linhas=[f"E[{_tok(t)}] (id {t})", f"P[{pos}] (posição {pos})", "x = E + P"],
                 cols=[str(j) for j in range(1, b.d + 1)], foco=2)
    out = [tab, _nota(f"x = {vetor(e, k)} + {vetor(p, k)} = <strong>{vetor(x, k)}</strong>")]
    if pos <= len(b.IDS_PROMPT):
        if b.IDS_PROMPT[pos - 1] == t:
            out.append(_nota(f"É a linha {pos} de X na frase «{_e(b.PROMPT)}»."))
        else:
            out.append(_nota(f"Na frase «{_e(b.PROMPT)}», a posição {pos} tem "
                             f"{_e(_tok(b.IDS_PROMPT[pos - 1]))}; o mesmo token em outra posição "
                             "ganha outro x."))
    return "".join(out), c, []


# ---------------------------------------------------------------------------
# Passo 3: LN e Q, K, V
# ---------------------------------------------------------------------------
def _qkv_padrao():
    n = len(b.IDS_PROMPT)
    x = _modelo()["X"][n - 1]
    return {"linha": str(n), **{f"x{j + 1}": casas_min(v) for j, v in enumerate(x)}}


def _qkv_form(c):
    ops = [(i + 1, f"{i + 1}: {t}") for i, t in enumerate(_TOKENS_PROMPT)]
    return (_linha(_campo_lista("linha", "Linha de X", ops, c["linha"], acao="linha"))
            + _linha(*[_campo_texto(f"x{j}", f"x{_sub(j)}", c[f"x{j}"], 5) for j in range(1, b.d + 1)],
                     _botao("Calcular")))


def _qkv(c, acao, inst):
    if acao == "linha":
        i = ler_inteiro(c.get("linha"), "a linha", 1, len(b.IDS_PROMPT))
        c = dict(c, **{f"x{j + 1}": casas_min(v) for j, v in enumerate(_modelo()["X"][i - 1])})
    x = [ler_num(c.get(f"x{j}"), f"x{_sub(j)}") for j in range(1, b.d + 1)]
    mu, sigma = b.media(x), b.desvio(x)
    u = b.ln_linha(x)                                                # (d,)
    q, k, v = (b.matmul([u], W)[0] for W in (b.W_Q, b.W_K, b.W_V))    # (d,) cada
    cab = [[b.cabeca([m], h)[0] for m in (q, k, v)] for h in range(b.n_cabecas)]
    linhas = []
    for nome, i in (("q = u W_Q", 0), ("k = u W_K", 1), ("v = u W_V", 2)):
        linhas.append(f'<tr><th scope="row">{nome}</th>'
                      + "".join(f"<td>{vetor(cab[h][i])}</td>" for h in range(b.n_cabecas)) + "</tr>")
    cols = "".join(f'<th scope="col">cabeça {h + 1} (colunas {h * b.d_h + 1} e {(h + 1) * b.d_h})</th>'
                   for h in range(b.n_cabecas))
    out = [_nota(f"μ = {num(mu)} · σ = {num(sigma)} → u = LN(x) = (x − μ) / σ = <strong>{vetor(u)}</strong>"),
           f'<table class="lw-matriz lw-qkv"><thead><tr><td></td>{cols}</tr></thead>'
           f'<tbody>{"".join(linhas)}</tbody></table>',
           _nota(f"u tem média {num(b.media(u))} e desvio {num(math.sqrt(sum(a * a for a in u) / len(u)))}: "
                 "a LN tira da linha o centro e a escala, e fica só o formato.")]
    return "".join(out), c, []


# ---------------------------------------------------------------------------
# Passo 4: máscaras e cabeças
# ---------------------------------------------------------------------------
def _masc_padrao():
    return {"causal": True, "cabeca": "1"}


def _masc_form(c):
    return _linha(_campo_marca("causal", "Máscara causal", _ligado(c["causal"])),
                  _radios("cabeca", "Cabeça", [("1", "cabeça 1"), ("2", "cabeça 2")], c["cabeca"]))


def _mascaras(c, acao, inst):
    causal = _ligado(c.get("causal"))
    h = ler_inteiro(c.get("cabeca"), "a cabeça", 1, b.n_cabecas) - 1
    r = _modelo(True, causal)
    S, A = r["S"][h], r["A"][h]
    rot = [f"{i + 1} {t}" for i, t in enumerate(_TOKENS_PROMPT)]
    n = len(A)
    ult = A[-1]
    alvo = max(range(n), key=lambda j: ult[j])
    out = ['<div class="lw-lado">',
           matriz(S, 3, rot, rot, legenda="S = Q Kᵀ / √d_h (escores)"),
           matriz(A, 3, rot, rot, calor=True, foco=n - 1, legenda="A = softmax(S) (pesos; cada linha soma 1)"),
           "</div>",
           _nota(f"Na cabeça {h + 1}, o último token ({_e(_TOKENS_PROMPT[-1])}) põe {num(ult[alvo])} "
                 f"do seu peso em {_e(_TOKENS_PROMPT[alvo])} (posição {alvo + 1}).")]
    if causal:
        out.append(_nota("Acima da diagonal, −∞ nos escores vira peso 0: nenhum token olha para a frente."))
    else:
        futuro = sum(A[0][1:])
        out.append(_nota(f"Sem a máscara, o primeiro token já põe {num(futuro)} do peso em tokens que vêm "
                         "depois dele: na geração, esses tokens ainda não existem.", "lw-aviso"))
    return "".join(out), c, []


# ---------------------------------------------------------------------------
# Passo 5: o bloco, linha a linha (o mini-brinquedo: uma cabeça, 3 tokens, d = 4)
# ---------------------------------------------------------------------------
N_MINI = len(b.MINI_X)
NOVA_LINHA_3 = [2, -1, 0, 1]  # o caso "só o último token muda": outro x para o token 3
CASOS_BLOCO = {
    "base": (b.MINI_X, True),
    "linha2x10": ([b.MINI_X[0], [10 * v for v in b.MINI_X[1]], b.MINI_X[2]], True),
    "ultimo": ([b.MINI_X[0], b.MINI_X[1], NOVA_LINHA_3], True),
    "sem_atencao": (b.MINI_X, False),
}
PASSOS_BLOCO = ["u", "qkv", "S", "A", "a", "h", "u2", "m", "y"]


def _grade(x):
    return {f"x{i + 1}{j + 1}": casas_min(v) for i, linha in enumerate(x) for j, v in enumerate(linha)}


def _bloco_padrao():
    return {**_grade(b.MINI_X), "com_atencao": True, "passo": "1", "caso": "base"}


def _bloco_form(c):
    grade = ['<table class="lw-grade"><caption>x (3 tokens × 4 números): edite à vontade</caption>'
             '<thead><tr><td></td>'
             + "".join(f'<th scope="col">{j}</th>' for j in range(1, b.d + 1)) + "</tr></thead><tbody>"]
    for i in range(1, N_MINI + 1):
        grade.append(f'<tr><th scope="row">token {i}</th>')
        for j in range(1, b.d + 1):
            grade.append(f'<td><input type="text" name="x{i}{j}" value="{_e(c[f"x{i}{j}"])}" size="4" '
                         f'inputmode="decimal" autocomplete="off" aria-label="x linha {i}, coluna {j}" '
                         f"disabled></td>")
        grade.append("</tr>")
    grade.append("</tbody></table>")
    return ("".join(grade)
            + _linha(_botao("◀ Voltar", "voltar"), _botao("Avançar ▶", "avancar", True),
                     _botao("Mostrar tudo", "tudo"), _botao("Recomeçar", "recomecar"),
                     _campo_marca("com_atencao", "com atenção", _ligado(c["com_atencao"])))
            + _linha(_botao("Caso base", "caso:base"), _botao("Linha 2 × 10", "caso:linha2x10"),
                     _botao("Só o último token muda", "caso:ultimo"), _botao("Sem atenção", "caso:sem_atencao"),
                     classe="lw-controles lw-casos")
            + _oculto("passo", c["passo"]) + _oculto("caso", c["caso"]))


def _mudou(T1, T2):
    """Células (já formatadas) que mudaram, como o leitor as vê."""
    return {(i, j) for i, (l1, l2) in enumerate(zip(T1, T2)) for j, (p, q) in enumerate(zip(l1, l2)) if p != q}


MATRIZES_BLOCO = ("u", "Q", "K", "V", "S", "A", "a", "h", "u2", "m", "y")


def _base_bloco():
    """O caso base do mini-bloco e suas células formatadas (calculados uma vez)."""
    if "bloco_base" not in _CACHE:
        base = b.mini_bloco(None, True)
        _CACHE["bloco_base"] = (base, {k: formata(base[k]) for k in MATRIZES_BLOCO})
    return _CACHE["bloco_base"]


def _dif_max(M1, M2, linhas=None):
    linhas = range(len(M1)) if linhas is None else linhas
    return max(abs(p - q) for i in linhas for p, q in zip(M1[i], M2[i]) if p != -math.inf and q != -math.inf)


def _bloco(c, acao, inst):
    c = dict(c)
    passo = ler_inteiro(c.get("passo") or "1", "o passo", 1, len(PASSOS_BLOCO))
    if acao == "avancar":
        passo = min(len(PASSOS_BLOCO), passo + 1)
    elif acao == "voltar":
        passo = max(1, passo - 1)
    elif acao == "tudo":
        passo = len(PASSOS_BLOCO)
    elif acao == "recomecar":
        passo = 1
    elif acao and acao.startswith("caso:"):
        nome = acao[5:]
        if nome not in CASOS_BLOCO:
            raise ErroEntrada(f"Caso desconhecido: {nome}.")
        x_caso, at_caso = CASOS_BLOCO[nome]
        c.update(_grade(x_caso), com_atencao=at_caso, caso=nome)
        passo = len(PASSOS_BLOCO)
    c["passo"] = str(passo)
    x = [[ler_num(c.get(f"x{i}{j}"), f"x{_sub(i)}{_sub(j)} (linha {i}, coluna {j})")
          for j in range(1, b.d + 1)] for i in range(1, N_MINI + 1)]
    com = _ligado(c.get("com_atencao"))
    # O caso só vale enquanto a grade e a marca forem as dele.
    caso = c.get("caso") or ""
    if caso in CASOS_BLOCO:
        xc, ac = CASOS_BLOCO[caso]
        if _grade(xc) != _grade(x) or ac != com:
            caso = ""
    else:
        caso = ""
    c["caso"] = caso
    r = b.mini_bloco(x, com)
    base, base_txt = _base_bloco()
    r_txt = {k: formata(r[k]) for k in MATRIZES_BLOCO}
    i3 = N_MINI - 1  # o token 3, a linha das legendas
    ver = lambda M: vetor(M[i3])  # noqa: E731
    rot = [f"token {i}" for i in range(1, N_MINI + 1)]
    cols = [str(j) for j in range(1, b.d + 1)]

    def mat(nome, **kw):
        return matriz(r[nome], 3, rot, cols if nome not in ("S", "A") else rot, foco=i3,
                      mudou=_mudou(r_txt[nome], base_txt[nome]), txt=r_txt[nome], **kw)

    mu3, s3 = b.media(x[i3]), b.desvio(x[i3])
    A3 = r["A"][i3]
    olha = max(range(N_MINI), key=lambda j: A3[j])
    legendas = {
        "u": ("u = LN(x)", mat("u"),
              f"u{_sub(3)} = (x{_sub(3)} − μ) / σ, com μ = {num(mu3)} e σ = {num(s3)}: "
              f"u{_sub(3)} = {ver(r['u'])}"),
        "qkv": ("Q = u W_Q, K = u W_K, V = u W_V",
                '<div class="lw-lado">' + mat("Q", legenda="Q") + mat("K", legenda="K") + mat("V", legenda="V")
                + "</div>",
                f"q{_sub(3)} = {ver(r['Q'])} (aqui W_Q = I), k{_sub(3)} = {ver(r['K'])}, "
                f"v{_sub(3)} = {ver(r['V'])} (W_V = I)"),
        "S": ("S = Q Kᵀ / √d (d = 4 aqui: uma cabeça só)", mat("S"),
              f"S{_sub(3)} = q{_sub(3)} · [k₁; k₂; k₃] / {casas_min(math.sqrt(b.d))} = {vetor(r['S'][i3])}; "
              "nas linhas 1 e 2, a máscara põe −∞ depois da diagonal"),
        "A": ("A = softmax(S), linha a linha", mat("A", calor=True),
              f"A{_sub(3)} = softmax(S{_sub(3)}) = <strong>{vetor(A3)}</strong>: "
              f"o token 3 olha mais para o token {olha + 1}"),
        "a": ("a = (A V) W_O", mat("a"),
              (f"a{_sub(3)} = ({vetor(A3)} · V) W_O = {ver(r['a'])}" if com
               else "sem atenção: a = 0 em todas as linhas")),
        "h": ("h = x + a", mat("h"),
              f"h{_sub(3)} = x{_sub(3)} + a{_sub(3)} = {vetor(x[i3])} + {ver(r['a'])} = {ver(r['h'])}"),
        "u2": ("u' = LN(h)", mat("u2"),
               f"u'{_sub(3)} = LN(h{_sub(3)}) = {ver(r['u2'])}"),
        "m": ("m = gelu(u' W₁) W₂", mat("m"),
              f"m{_sub(3)} = gelu(u'{_sub(3)}) + gelu(−u'{_sub(3)}) = {ver(r['m'])} "
              "(com W₁ = [I | −I] e W₂ = [I ; I])"),
        "y": ("y = h + m", mat("y"),
              f"y{_sub(3)} = h{_sub(3)} + m{_sub(3)} = {ver(r['y'])}; "
              f"o primeiro número, <strong>y{_sub(31)} = {num(r['y'][i3][0])}</strong>"),
    }
    out = ['<ol class="lw-passos">']
    for k, chave in enumerate(PASSOS_BLOCO, start=1):
        titulo, corpo, leg = legendas[chave]
        cls = "lw-passo" + (" lw-futura" if k > passo else "") + (" lw-atual" if k == passo else "")
        out.append(f'<li class="{cls}" data-passo="{k}"><p class="lw-passo-titulo">{titulo}</p>{corpo}'
                   f'<p class="lw-legenda">{leg}</p></li>')
    out.append("</ol>")
    total = len(PASSOS_BLOCO)
    out.append(_nota(f"Linha {passo} de {total}" + (" (fim do bloco)" if passo == total else ""),
                     "lw-progresso"))
    notas = []
    if caso == "linha2x10":
        d_u = _dif_max(r["u"], base["u"], [1])
        notas.append(f"A linha 2 de x foi multiplicada por 10. A linha 2 de u = LN(x) quase não mudou "
                     f"(maior diferença: {num(d_u)}): a LN apaga a escala. O tamanho segue só pelo "
                     f"residual: h{_sub(2)} foi de {vetor(base['h'][1])} para {vetor(r['h'][1])}.")
    elif caso == "ultimo":
        d_12 = max(_dif_max(r[m], base[m], [0, 1]) for m in ("u", "Q", "K", "V", "S", "A", "a", "h", "m", "y"))
        notas.append(f"Só a linha 3 de x mudou. Nas linhas 1 e 2, nenhuma etapa se mexeu (maior "
                     f"diferença: {num(d_12)}): pela máscara causal, um token não vê os que vêm depois.")
    elif caso == "sem_atencao":
        d_hx = _dif_max(r["h"], x)
        notas.append(f"Sem atenção, a = 0 e h = x (maior diferença: {num(d_hx)}): cada linha segue "
                     "sozinha, sem olhar para as outras.")
    if caso != "base":
        notas.append("Em destaque, as células que mudaram em relação ao caso base.")
    out.append("".join(_nota(n, "lw-caso") for n in notas))
    return "".join(out), c, []


# ---------------------------------------------------------------------------
# Passo 6: a saída
# ---------------------------------------------------------------------------
T_MIN, T_MAX = 0.1, 3


def _saida_padrao():
    return {"frase": b.PROMPT, "atencao": True, "T": "1", "T_faixa": "1"}


def _saida_form(c):
    return (_linha(
        f'<label class="lw-campo lw-largo"><span>Prompt</span><input type="text" name="frase" '
        f'value="{_e(c["frase"])}" autocomplete="off" spellcheck="false" disabled></label>',
        _campo_marca("atencao", "com atenção", _ligado(c["atencao"])))
        + _linha(_campo_faixa("T_faixa", "Temperatura", c["T_faixa"], T_MIN, T_MAX, 0.1, espelho="T"),
                 _campo_texto("T", "T =", c["T"], 5), _botao("Calcular")))


def _saida(c, acao, inst):
    c = dict(c)
    T = ler_num(c.get("T"), "a temperatura T")
    b.valida_config(T)
    c["T_faixa"] = casas_min(min(T_MAX, max(T_MIN, T))).replace(",", ".")
    frase = c.get("frase", b.PROMPT)
    atencao = _ligado(c.get("atencao", True))
    ids = b.codificar(frase)            # erro em português para palavra fora do vocabulário
    r = _modelo(atencao) if ids == b.IDS_PROMPT else b.modelo(ids, atencao)
    z = r["z"][-1]                      # (V,) a última linha prevê o próximo token
    p = b.softmax(z, T)                 # (V,)
    ordem = b.ranking(p)
    itens = [(_tok(i), p[i], [num(p[i]), num(z[i])], "lw-primeiro" if n == 0 else "")
             for n, i in enumerate(ordem)]
    out = [barras(itens, ["token", f"p com T = {casas_min(T)}", "p", "logit z"]),
           _nota(f"O mais provável, {_e(_tok(ordem[0]))}, fica com {num(p[ordem[0]])}; "
                 f"os {inteiro(b.V)} valores somam {num(sum(p))}. "
                 + ("T menor que 1 afia a distribuição; T maior achata." if T != 1
                    else "Com T = 1, p é o softmax dos logits sem mudança.")),
           _nota(f"Última linha de «{_e(b.decodificar(ids))}» ({inteiro(len(ids))} tokens), "
                 + ("com atenção." if atencao else
                    "sem atenção: ela só vê o último token e a sua posição."))]
    return "".join(out), c, []


# ---------------------------------------------------------------------------
# Passo 7: escolher, anexar, rodar de novo (com cache de KV)
# ---------------------------------------------------------------------------
PRESETS_PROXIMO = {
    "padrao": {"T": "0,7", "k": "", "top_p": "0,9", "u": "0,5"},
    "guloso": {"T": "1", "k": "", "top_p": "", "u": ""},
    "quente": {"T": "2", "k": "", "top_p": "", "u": "0,5"},
    "topk2": {"T": "1", "k": "2", "top_p": "", "u": "0,5"},
    "u08": {"T": "0,7", "k": "", "top_p": "0,9", "u": "0,8"},
}
_CACHES_KV = {}


def _prox_padrao():
    return {**PRESETS_PROXIMO["padrao"], "ids": " ".join(map(str, b.IDS_PROMPT))}


def _prox_form(c):
    return (_linha(_campo_texto("T", "T", c["T"], 4, "temperatura, maior que 0"),
                   _campo_texto("k", "top-k", c["k"], 3, "vazio: sem corte por k"),
                   _campo_texto("top_p", "top-p", c["top_p"], 4, "vazio: sem corte por p"),
                   _campo_texto("u", "u", c["u"], 4, "o sorteio, em [0, 1); vazio: guloso"),
                   _botao("Escolher"))
            + _linha(_botao("Anexar e rodar de novo", "anexar", True), _botao("Recomeçar", "recomecar"))
            + _linha(_botao("Padrão", "preset:padrao"), _botao("Guloso", "preset:guloso"),
                     _botao("Quente (T = 2)", "preset:quente"), _botao("Top-k 2", "preset:topk2"),
                     _botao("u = 0,8", "preset:u08"), classe="lw-controles lw-casos")
            + _nota("Vazio em top-k ou top-p: sem esse corte. Vazio em u: guloso (fica o mais provável). "
                    "Na tabela, q é p renormalizado entre os tokens que ficam.", "lw-dica")
            + _oculto("ids", c["ids"]))


def _ler_ids(s):
    try:
        ids = [int(t) for t in str(s).split()]
    except ValueError:
        return list(b.IDS_PROMPT)
    if not ids or len(ids) > b.n_ctx or any(not 0 <= i < b.V for i in ids) or b.EOT in ids[:-1]:
        return list(b.IDS_PROMPT)
    return ids


def _logits(inst, ids):
    """z da última linha; reaproveita o cache de KV do widget -> (cache, z, linhas novas)."""
    guardado = _CACHES_KV.get(inst) if inst else None
    if guardado and guardado[0].ids == ids:
        return guardado[0], guardado[1], 0
    if guardado and guardado[0].ids == ids[:-1]:
        cache = guardado[0]
        z = cache.adiciona(ids[-1])
        novas = 1
    else:
        cache = b.CacheKV()
        for t in ids:
            z = cache.adiciona(t)
        novas = len(ids)
    if inst:
        _CACHES_KV[inst] = (cache, z)
    return cache, z, novas


def _proximo(c, acao, inst):
    c = dict(c)
    if acao and acao.startswith("preset:"):
        c.update(PRESETS_PROXIMO.get(acao[7:], {}))
    ids = list(b.IDS_PROMPT) if acao == "recomecar" else _ler_ids(c.get("ids"))
    T = ler_num(c.get("T"), "a temperatura T")
    k = _inteiro_se_der(ler_num(c.get("k"), "o top-k", opcional=True))
    top_p = ler_num(c.get("top_p"), "o top-p", opcional=True)
    u = ler_num(c.get("u"), "o sorteio u", opcional=True)
    b.valida_config(T, k, top_p, u)
    n_prompt = len(b.IDS_PROMPT)
    fim = ids[-1] == b.EOT or len(ids) >= b.n_ctx
    anexado = None
    if acao == "anexar" and not fim:
        _, z, _ = _logits(inst, ids)
        anexado, _ = b.escolher(z, T, k, top_p, u)
        ids = ids + [anexado]
        fim = anexado == b.EOT or len(ids) >= b.n_ctx
    c["ids"] = " ".join(map(str, ids))
    chips = "".join(
        f'<li class="lw-token{" lw-novo" if n >= n_prompt else ""}"><span class="lw-token-texto">{_e(_tok(i))}'
        f'</span><span class="lw-token-id">{inteiro(i)}</span></li>' for n, i in enumerate(ids))
    out = [f'<ol class="lw-tokens" aria-label="a sequência até aqui">{chips}</ol>',
           _nota(f"Texto: «{_e(b.decodificar(ids))}»")]
    if ids[-1] == b.EOT:
        out.append(_nota("O modelo escolheu &lt;|endoftext|&gt;: a geração para aqui. "
                         "Use «Recomeçar» para voltar ao prompt.", "lw-fim"))
        return "".join(out), c, ["anexar"]
    cache, z, novas = _logits(inst, ids)
    escolhido, det = b.escolher(z, T, k, top_p, u)
    p1 = b.softmax(z)
    mantidos = det["mantidos"]
    q = dict(zip(mantidos, det["q"]))
    acum = dict(zip(mantidos, det["acumuladas"]))
    itens = []
    for i in b.ranking(det["p"]):
        cls = "lw-escolhido" if i == escolhido else ("lw-mantido" if i in q else "lw-cortado")
        itens.append((_tok(i), det["p"][i],
                      [num(det["p"][i]), num(q[i]) if i in q else "cortado",
                       num(acum[i]) if i in acum else ""], cls))
    cfg = [f"T = {casas_min(T)}", "top-k desligado" if k is None else f"top-k = {inteiro(k)}",
           "top-p desligado" if top_p is None else f"top-p = {casas_min(top_p)}",
           "guloso (sem u)" if u is None else f"u = {casas_min(u)}"]
    out.append(_nota(" · ".join(cfg), "lw-config"))
    out.append(barras(itens, ["token", "p com T", "p", "q", "acumulada"]))
    if u is None:
        como = "guloso: fica o mais provável entre os mantidos"
    else:
        como = f"u = {casas_min(u)} cai no primeiro token cuja acumulada passa de u"
    out.append(_nota(f"Ficam {inteiro(len(mantidos))} de {inteiro(b.V)}; {como}. Escolhido: "
                     f"<strong>{_e(_tok(escolhido))}</strong> (p = {num(det['p'][escolhido])} com T = "
                     f"{casas_min(T)}; {num(p1[escolhido])} com T = 1).", "lw-resultado"))
    if novas == 0:
        cache_txt = "nenhuma linha nova: só a escolha mudou, os logits são os mesmos"
    elif novas == 1 and len(ids) > 1:
        cache_txt = (f"1 linha nova (a do último token); K e V das {inteiro(len(ids) - 1)} posições "
                     "anteriores vieram do cache")
    else:
        cache_txt = f"{inteiro(novas)} linhas, o prompt inteiro, uma vez só"
    out.append(_nota(f"Cache de KV: esta rodada calculou {cache_txt}. Guardadas: K e V de "
                     f"{inteiro(len(cache.ids))} posições; linhas calculadas desde o início: "
                     f"{inteiro(cache.linhas_calculadas)}.", "lw-cache"))
    if len(ids) >= b.n_ctx:
        out.append(_nota(f"O brinquedo conhece só {inteiro(b.n_ctx)} posições: não dá para anexar mais.",
                         "lw-fim"))
    if escolhido == b.EOT:
        out.append(_nota("O escolhido é &lt;|endoftext|&gt;: anexado, ele encerra a geração.", "lw-fim"))
    return "".join(out), c, (["anexar"] if fim else [])


# ---------------------------------------------------------------------------
# Desde 2017: configure o bloco (usa lab/arquitetura.py)
# ---------------------------------------------------------------------------
CONFIG_D = 4096          # o bloco "classe 8B" da página
CONFIGS_BLOCO = {
    "2017": {"norma_pos": "pos", "norma": "layernorm", "mlp": "relu", "atencao": "mha",
             "posicao": "senoidal", "vieses": True},
    "2019": {"norma_pos": "pre", "norma": "layernorm", "mlp": "gelu", "atencao": "mha",
             "posicao": "aprendida", "vieses": True},
    "2026": {"norma_pos": "pre", "norma": "rmsnorm", "mlp": "swiglu", "atencao": "gqa",
             "posicao": "rope", "vieses": False},
}


BYTES_KV = 2  # float16/bfloat16 no cache de KV



def _cfg_base():
    return arq.CLASSE_8B if arq else {"d": CONFIG_D, "n_cabecas": 32, "n_kv": 8, "n_camadas": 32}


def _config_padrao():
    return dict(CONFIGS_BLOCO["2026"])


def _config_form(c):
    base = _cfg_base()
    return (_linha(
        _campo_lista("norma_pos", "Posição da norma",
                     [("pos", "depois da soma (pós-LN)"), ("pre", "antes da subcamada (pré-LN)")], c["norma_pos"]),
        _campo_lista("norma", "Normalizador", [("layernorm", "LayerNorm"), ("rmsnorm", "RMSNorm")], c["norma"]),
        _campo_lista("mlp", "MLP", [("relu", "ReLU, 2 matrizes"), ("gelu", "GELU, 2 matrizes"),
                                    ("swiglu", "SwiGLU, 3 matrizes")], c["mlp"]),
        _campo_lista("atencao", "Atenção",
                     [("mha", "MHA"), ("gqa", f"GQA ({base['n_kv']} cabeças de K/V para {base['n_cabecas']} de Q)")],
                     c["atencao"]),
        _campo_lista("posicao", "Posição", [("senoidal", "senoidal, na entrada"), ("aprendida", "aprendida, na entrada"),
                                            ("rope", "RoPE, em Q e K")], c["posicao"]),
        _campo_marca("vieses", "vieses", _ligado(c["vieses"])))
        + _linha(_botao("2017 (o artigo)", "preset:2017"), _botao("2019 (GPT-2)", "preset:2019"),
                 _botao("Padrão de hoje", "preset:2026"), classe="lw-controles lw-casos"))


def _config_bloco(c, acao, inst):
    if arq is None:
        raise ErroEntrada("Falta lab/arquitetura.py no site: este widget depende dele.")
    c = dict(c)
    if acao and acao.startswith("preset:"):
        c.update(CONFIGS_BLOCO.get(acao[7:], {}))
    escolhas = {"norma_pos": ("pos", "pre"), "norma": ("layernorm", "rmsnorm"), "mlp": ("relu", "gelu", "swiglu"),
                "atencao": ("mha", "gqa"), "posicao": ("senoidal", "aprendida", "rope")}
    for campo, validos in escolhas.items():
        if c.get(campo) not in validos:
            raise ErroEntrada(f"Escolha inválida em {campo}.")
    vieses = _ligado(c.get("vieses"))
    base = _cfg_base()
    d, nq = base["d"], base["n_cabecas"]
    n_kv = nq if c["atencao"] == "mha" else base["n_kv"]
    p = arq.params_bloco(d, nq, n_kv, c["mlp"], vieses, c["norma"])
    d_h = d // nq
    kv = arq.cache_kv_bytes(base["n_camadas"], n_kv, d_h, bytes_por_numero=BYTES_KV)
    kv_mha = arq.cache_kv_bytes(base["n_camadas"], nq, d_h, bytes_por_numero=BYTES_KV)
    itens = [("MLP", p["frac_mlp"], [f"{inteiro(p['mlp'])} ({pct(p['frac_mlp'])})"], "lw-mlp"),
             ("atenção", p["frac_atencao"], [f"{inteiro(p['atencao'])} ({pct(p['frac_atencao'])})"], "lw-at"),
             ("normas", p["frac_normas"], [f"{inteiro(p['normas'])} ({pct_pequeno(p['frac_normas'])})"], "")]
    pre = c["norma_pos"] == "pre"
    norma = "RMSNorm" if c["norma"] == "rmsnorm" else "LayerNorm"
    if pre:
        fluxo = (f"x → <b>{norma}</b> → atenção → <b>+ x</b> → <b>{norma}</b> → MLP → <b>+ h</b>"
                 '<span class="lw-residual lw-residual-ok">caminho residual: direto, a identidade passa intacta</span>')
    else:
        fluxo = (f"x → atenção → <b>+ x</b> → <b>{norma}</b> → MLP → <b>+ h</b> → <b>{norma}</b>"
                 '<span class="lw-residual lw-residual-cinza">caminho residual: passa por uma norma em cada '
                 "camada (sem warmup, não treina bem)</span>")
    posicao = {"senoidal": "senoidal, somada na entrada: 0 parâmetros",
               "aprendida": f"aprendida, somada na entrada: n_ctx × {inteiro(d)} parâmetros fora do bloco",
               "rope": "RoPE: gira Q e K conforme a posição, 0 parâmetros"}[c["posicao"]]
    out = [f'<p class="lw-fluxo">{fluxo}</p>',
           barras(itens, ["parte", "fração do bloco", "parâmetros"]),
           _nota(f"Um bloco com d = {inteiro(d)} e {inteiro(nq)} cabeças de consulta: "
                 f"<strong>{inteiro(p['total'])}</strong> parâmetros; o MLP fica com {pct(p['frac_mlp'])} "
                 f"e a atenção com {pct(p['frac_atencao'])}."),
           _nota(f"Posição: {posicao}."),
           _nota(f"Cache de KV por token ({inteiro(base['n_camadas'])} camadas, {inteiro(8 * BYTES_KV)} bits "
                 "por número): "
                 f"{inteiro(kv // 1024)} KiB" + (f", {inteiro(kv_mha // kv)}× menor que com MHA" if kv < kv_mha
                                                 else "") + ".")]
    return "".join(out), c, []


# ---------------------------------------------------------------------------
# Escala: reparta o compute (usa lab/arquitetura.py)
# ---------------------------------------------------------------------------
def _ajustes():
    return {"besiroglu": ("Besiroglu et al. (2024)", arq.BESIROGLU_2024),
            "hoffmann": ("Hoffmann et al. (2022), abordagem 3", arq.HOFFMANN_2022)}


def _compute_padrao():
    return {"logC": "23", "logN": "10", "ajuste": "besiroglu", "inferencia": False, "logS": "12"}


def _compute_form(c):
    return (_linha(_campo_faixa("logC", "Compute C (FLOPs)", c["logC"], 20, 26, 0.5),
                   _campo_faixa("logN", "Parâmetros N", c["logN"], 8, 13, 0.05),
                   _campo_lista("ajuste", "Ajuste da lei", [("besiroglu", "Besiroglu et al. (2024)"),
                                                           ("hoffmann", "Hoffmann et al. (2022)")], c["ajuste"]))
            + _linha(_campo_marca("inferencia", "precificar a inferência também", _ligado(c["inferencia"])),
                     _campo_faixa("logS", "Tokens a servir", c["logS"], 10, 15, 0.5)))


def _grafico(pontos, marcas, xmin, xmax):
    """Curva da perda contra log10(N), em SVG; marcas = [(log10 N, perda, classe, rótulo)]."""
    L, A_, M = 320, 150, 30
    ys = [y for _, y in pontos] + [m[1] for m in marcas]
    ymin, ymax = min(ys), max(ys)
    ymax = ymin + max(ymax - ymin, 1e-6)

    def px(x):
        return M + (x - xmin) / (xmax - xmin) * (L - M - 8)

    def py(y):
        return 8 + (ymax - y) / (ymax - ymin) * (A_ - 28)

    linha = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in pontos)
    out = [f'<svg class="lw-grafico" viewBox="0 0 {L} {A_}" role="img" '
           f'aria-label="perda prevista contra o número de parâmetros, com o compute fixo">',
           f'<polyline points="{linha}" class="lw-curva"/>',
           f'<line x1="{M}" y1="{A_ - 20}" x2="{L - 8}" y2="{A_ - 20}" class="lw-eixo"/>']
    for e in range(math.ceil(xmin), math.floor(xmax) + 1):
        out.append(f'<text x="{px(e):.1f}" y="{A_ - 6}" class="lw-rotulo">{_e(abreviado(10 ** e, 0))}</text>')
    out.append(f'<text x="{M}" y="{A_ - 24}" class="lw-rotulo" text-anchor="start">perda</text>')
    out.append(f'<text x="{L - 8}" y="{A_ - 24}" class="lw-rotulo" text-anchor="end">N (parâmetros)</text>')
    out.append(f'<text x="2" y="{py(ymax) + 4:.1f}" class="lw-rotulo">{num(ymax, 2)}</text>')
    out.append(f'<text x="2" y="{py(ymin) + 4:.1f}" class="lw-rotulo">{num(ymin, 2)}</text>')
    for x, y, cls, rot in marcas:
        out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="4" class="{cls}"><title>{_e(rot)}</title></circle>')
    out.append("</svg>")
    return "".join(out)


def _compute(c, acao, inst):
    if arq is None:
        raise ErroEntrada("Falta lab/arquitetura.py no site: este widget depende dele.")
    c = dict(c)
    logC = ler_num(c.get("logC"), "o compute")
    logN = ler_num(c.get("logN"), "os parâmetros")
    logS = ler_num(c.get("logS"), "os tokens a servir")
    if not (15 <= logC <= 30 and 6 <= logN <= 14 and 6 <= logS <= 18):
        raise ErroEntrada("Valor fora da faixa do widget.")
    if c.get("ajuste") not in _ajustes():
        raise ErroEntrada("Ajuste desconhecido.")
    nome_aj, aj = _ajustes()[c["ajuste"]]
    C, N = 10 ** logC, 10 ** logN
    D = C / (arq.FLOPS_TREINO * N)
    L_N = arq.perda(N, D, aj)
    ot = arq.otimo_chinchilla(C, aj)
    lo, hi = math.log10(ot["N"]) - 2, math.log10(ot["N"]) + 2
    lo, hi = min(lo, logN - 0.2), max(hi, logN + 0.2)
    pontos = [(x, arq.perda_com_compute(10 ** x, C, aj)) for x in (lo + (hi - lo) * i / 60 for i in range(61))]
    marcas = [(math.log10(ot["N"]), ot["perda"], "lw-otimo", "mínimo de Chinchilla"),
              (logN, L_N, "lw-voce", "sua escolha")]
    out = []
    inf = None
    if _ligado(c.get("inferencia")):
        S = 10 ** logS
        inf = arq.otimo_com_inferencia_para_compute(C, S, aj)
        marcas.append((math.log10(inf["N"]), arq.perda(inf["N"], inf["D"], aj), "lw-inferencia",
                       "mais barato contando o serviço"))
    out.append(_grafico(pontos, marcas, lo, hi))
    if inf:
        out.append(_nota(f"Tokens a servir: {cientifico(10 ** logS)}.", "lw-config"))
    out.append(_nota(f"C = {cientifico(C)} FLOPs. Sua escolha: N = {abreviado(N)} parâmetros, "
                     f"D = C / 6N = {abreviado(D)} tokens ({casas_min(D / N, 1)} tokens por parâmetro), "
                     f"perda prevista <strong>{num(L_N)}</strong> nats por token.", "lw-voce-txt"))
    out.append(_nota(f"O mínimo ({_e(nome_aj)}): N* = {abreviado(ot['N'])}, D* = {abreviado(ot['D'])}, "
                     f"cerca de <strong>{casas_min(ot['tokens_por_parametro'], 0)} tokens por parâmetro</strong>, "
                     f"perda {num(ot['perda'])}.", "lw-otimo-txt"))
    if inf:
        out.append(_nota(
            f"Servindo {cientifico(10 ** logS)} tokens, o modelo mais barato com a mesma perda tem "
            f"N = {abreviado(inf['N'])} e treina em D = {abreviado(inf['D'])} tokens "
            f"(<strong>{casas_min(inf['tokens_por_parametro'], 0)} tokens por parâmetro</strong>): "
            f"treino {cientifico(inf['custo_treino'])} + serviço {cientifico(inf['custo_servir'])} "
            "FLOPs.", "lw-inferencia-txt"))
    return "".join(out), c, []


# ---------------------------------------------------------------------------
# O registro e as duas portas de entrada
# ---------------------------------------------------------------------------
WIDGETS = {
    "tokens": ("Tokenize uma frase", _tokens_padrao, _tokens_form, _tokens),
    "embeddings": ("Monte uma linha de X", _emb_padrao, _emb_form, _embeddings),
    "qkv": ("Uma linha pela LN e pelas projeções", _qkv_padrao, _qkv_form, _qkv),
    "mascaras": ("A máscara e as duas cabeças", _masc_padrao, _masc_form, _mascaras),
    "bloco": ("O bloco, linha a linha", _bloco_padrao, _bloco_form, _bloco),
    "saida": (f"A temperatura e as {b.V} probabilidades", _saida_padrao, _saida_form, _saida),
    "proximo": ("Escolher, anexar, rodar de novo", _prox_padrao, _prox_form, _proximo),
    "config-bloco": ("Configure o bloco", _config_padrao, _config_form, _config_bloco),
    "compute": ("Reparta o compute", _compute_padrao, _compute_form, _compute),
}


def responder(pedido):
    """Um pedido do widget -> {"html", "campos", "desligar"} ou {"erro"}."""
    try:
        nome = pedido.get("widget")
        if nome not in WIDGETS:
            raise ErroEntrada(f"Widget desconhecido: {nome}.")
        _, padrao, _, calcula = WIDGETS[nome]
        campos = {**padrao(), **(pedido.get("campos") or {})}
        saida, campos, desligar = calcula(campos, pedido.get("acao") or None, pedido.get("inst"))
        return {"html": saida, "campos": campos, "desligar": desligar}
    except ValueError as e:  # ErroEntrada, ErroToken e as mensagens de valida_config
        return {"erro": str(e)}
    except Exception as e:  # um erro do widget não pode derrubar a página
        return {"erro": f"Erro inesperado no widget ({type(e).__name__}: {e})."}


def responder_json(texto):
    """A porta do worker: JSON de entrada, JSON de saída."""
    try:
        pedido = json.loads(texto)
    except ValueError:
        return json.dumps({"erro": "Pedido ilegível."})
    return json.dumps(responder(pedido), ensure_ascii=False)


def widget_html(nome, inst):
    """O widget inteiro como a página o mostra no build (controles + números)."""
    if nome not in WIDGETS:
        raise KeyError(f"widget desconhecido: {nome!r} (conhecidos: {', '.join(WIDGETS)})")
    titulo, padrao, form, _ = WIDGETS[nome]
    r = responder({"widget": nome, "campos": padrao(), "inst": None})
    if "erro" in r:
        raise RuntimeError(f"widget {nome}: {r['erro']}")
    return (f'<div class="livro-widget" data-widget="{_e(nome)}" id="{_e(inst)}">'
            f'<p class="lw-titulo">Experimente · {titulo}</p>'
            f'<form class="lw-form" autocomplete="off" novalidate>{form(r["campos"])}</form>'
            f'<p class="lw-status" role="status">Números calculados no build. '
            f"Com JavaScript, o Python do navegador assume os controles.</p>"
            f'<p class="lw-erro" role="alert" hidden></p>'
            f'<div class="lw-saida" aria-live="polite">{r["html"]}</div></div>')
