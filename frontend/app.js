// Placeholder shell; replaced by the real app.
export function mountApp(root) {
  const p = document.createElement('p');
  p.textContent = 'tb_multiframework loading…';
  root.appendChild(p);
  fetch('./runs').then((r) => r.json()).then((d) => {
    p.textContent = `${d.runs.length} runs`;
  });
}
