// Entry point TensorBoard imports into the tab's iframe; it calls render().
export async function render() {
  const {mountApp} = await import('./static/app.js');
  mountApp(document.body);
}
