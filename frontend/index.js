// Entry point. TensorBoard's plugin iframe imports this module (served at
// /data/plugin/tb_multiframework/index.js) and calls render(); everything
// else is served under ./static/ and imported relatively from there.

/** Mounts the app into the iframe's body. */
export async function render() {
  const { mountApp } = await import("./static/app.js");
  await mountApp(document.body);
}
